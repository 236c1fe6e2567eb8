import { WorkflowFailedError, WorkflowNotFoundError } from '@temporalio/client';
import { getChildrenQuery, getStatusQuery } from '../../workflows/messages';
import type { SessionInput } from '../../workflows/session-types';
import { FakeSessionWorld, type Reply } from '../helpers/fake-session-world';

/*
 * Log first, then state: when a handler's append fails, the session ends (SessionFailed), and
 * what it reports afterwards (queries replay the closed workflow) is what its log says, never the
 * change whose event is missing.
 */
jest.setTimeout(120_000);
let world: FakeSessionWorld;
const TQ = 'session-log-first';

beforeAll(async () => {
  world = await FakeSessionWorld.start(TQ);
});
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => world.reset());

/** Runs `script` for a fresh root with `type`'s first root append failing; returns the root's input. */
async function runFailing(script: Record<string, Reply[]>, type: string): Promise<SessionInput> {
  world.script = script;
  const input = world.input('t');
  let hit = false;
  world.failAppend = (e, sid) => {
    if (hit || sid !== input.sessionId || e.type !== type) return false;
    hit = true;
    return true;
  };
  await expect(world.client.workflow.execute('agentSessionWorkflow', { taskQueue: TQ, workflowId: input.sessionId, args: [input] }))
    .rejects.toBeInstanceOf(WorkflowFailedError);
  expect(hit).toBe(true);
  const last = world.events(input.sessionId).at(-1);
  expect(last).toMatchObject({ type: 'SessionFailed', kind: 'internal' });
  expect(last?.type === 'SessionFailed' && last.reason).toContain(`the log refused ${type}`);
  return input;
}

const status = (id: string) => world.client.workflow.getHandle(id).query(getStatusQuery);

describe('no state changes before its event is logged', () => {
  test('spawn: a child whose SubagentSpawned failed is not a child, and was never started', async () => {
    const input = await runFailing({ root: [{ code: [{ op: 'spawn', task: 'x', name: 'a' }] }] }, 'SubagentSpawned');
    expect(await world.client.workflow.getHandle(input.sessionId).query(getChildrenQuery)).toEqual([]);
    await expect(world.client.workflow.getHandle(`${input.sessionId}/a`).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  test('send: a message whose MessageSent failed is not counted as sent', async () => {
    const input = await runFailing({
      root: [{ code: [{ op: 'spawn', task: 'x', name: 'a' }, { op: 'send', to: 'child:a', text: 'hi' }] }],
      a: [{ code: [{ op: 'take', waitMs: 20_000 }] }, { answer: 'ok' }],
    }, 'MessageSent');
    expect((await status(input.sessionId)).messagesSent).toBe(0);
  });

  test('take: messages whose MessageDelivered failed stay unread', async () => {
    const input = await runFailing({
      root: [{ code: [{ op: 'spawn', task: 'x', name: 'a' }] }, { code: [{ op: 'take', waitMs: 20_000 }] }, { answer: 'done' }],
      a: [{ code: [{ op: 'send', to: 'parent', text: 'news' }] }, { answer: 'ok' }],
    }, 'MessageDelivered');
    expect((await status(input.sessionId)).unread).toBeGreaterThanOrEqual(1);
  });

  test('goal: a goal whose GoalChanged (set) failed is not set', async () => {
    const input = await runFailing({ root: [{ code: [{ op: 'goal', objective: 'ship it' }] }] }, 'GoalChanged');
    expect((await status(input.sessionId)).goal).toBeNull();
  });

  test('goal: a completion whose GoalChanged failed leaves the goal active', async () => {
    world.script = { root: [{ code: [{ op: 'goal', objective: 'ship it' }, { op: 'goalComplete' }] }] };
    const input = world.input('t');
    let goals = 0;
    world.failAppend = (e, sid) => sid === input.sessionId && e.type === 'GoalChanged' && ++goals === 2;
    await expect(world.client.workflow.execute('agentSessionWorkflow', { taskQueue: TQ, workflowId: input.sessionId, args: [input] }))
      .rejects.toBeInstanceOf(WorkflowFailedError);
    expect(world.events(input.sessionId).filter((e) => e.type === 'GoalChanged')).toHaveLength(1);
    expect((await status(input.sessionId)).goal).toBe('active');
  });

  test('schedule: a schedule whose ScheduleChanged failed is not held', async () => {
    const input = await runFailing({ root: [{ code: [{ op: 'schedule', spec: 'every 1h', instruction: 'check' }] }] }, 'ScheduleChanged');
    expect((await status(input.sessionId)).schedules).toBe(0);
  });

  test('retask: a child whose SubagentTasked failed keeps its finished task', async () => {
    const input = await runFailing({
      root: [
        { code: [{ op: 'spawn', task: 'first', name: 'a' }] },
        { code: [{ op: 'take', waitMs: 20_000 }] },
        { code: [{ op: 'spawn', task: 'second', name: 'a' }] },
      ],
      a: [{ answer: 'first answer' }, { answer: 'second answer' }],
    }, 'SubagentTasked');
    const [child] = await world.client.workflow.getHandle(input.sessionId).query(getChildrenQuery);
    expect(child).toMatchObject({ name: 'a', task: 'first', status: 'completed', answer: 'first answer' });
  });

  test('harness: a failed HarnessEditRequested ends the session (it changes no state of its own)', async () => {
    await runFailing({ root: [{ code: [{ op: 'harness' }] }] }, 'HarnessEditRequested');
  });
});
