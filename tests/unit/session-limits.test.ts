import type { SpawnRefused } from '../../schemas/generated/events';
import type { SessionInput } from '../../workflows/session-types';
import { FakeSessionWorld } from '../helpers/fake-session-world';

/* Bounded resources on the workflow side: each refusal is logged and reaches the cell as an error naming the limit. */
jest.setTimeout(120_000);
let world: FakeSessionWorld;
const TQ = 'session-limits';

beforeAll(async () => {
  world = await FakeSessionWorld.start(TQ);
});
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => world.reset());

const run = (input: SessionInput) => world.client.workflow.execute('agentSessionWorkflow', { taskQueue: TQ, workflowId: input.sessionId, args: [input] });
const refusals = (id: string) => world.events(id).filter((e): e is SpawnRefused => e.type === 'SpawnRefused');
const errors = (id: string) => (world.cellResults.get(id) ?? []).flat().filter((r): r is { error: string } => typeof r === 'object' && r !== null && 'error' in r);

test('children per session: the spawn past maxChildren is refused, logged, and raised in the cell; the session goes on', async () => {
  world.script = {
    root: [{ code: [{ op: 'spawn', task: 'x', name: 'a' }, { op: 'spawn', task: 'x', name: 'b' }, { op: 'spawn', task: 'x', name: 'c' }] }, { answer: 'done' }],
    a: [{ answer: 'a' }], b: [{ answer: 'b' }],
  };
  const input = world.input('t', { maxChildren: 2 });
  await expect(run(input)).resolves.toMatchObject({ status: 'completed' });
  expect(refusals(input.sessionId)).toEqual([expect.objectContaining({ name: 'c', limit: 'children_per_session' })]);
  expect(refusals(input.sessionId)[0].reason).toContain('RECUR_MAX_CHILDREN=2');
  expect(errors(input.sessionId)).toEqual([{ error: refusals(input.sessionId)[0].reason }]);
  expect(world.types(input.sessionId).filter((t) => t === 'SubagentSpawned')).toHaveLength(2);
});

test('sessions per tree: the root counts every spawn in the tree, across continue-as-new, and refuses past maxTreeSessions', async () => {
  world.script = {
    root: [{ code: [{ op: 'spawn', task: 'x', name: 'a' }] }, { code: [{ op: 'take', waitMs: 20_000 }] }, { code: [{ op: 'spawn', task: 'y', name: 'd' }] }, { answer: 'done' }],
    a: [{ code: [{ op: 'spawn', task: 'x', name: 'b' }, { op: 'spawn', task: 'x', name: 'c' }] }, { answer: 'a done' }],
    b: [{ answer: 'b' }],
  };
  // One turn per run: the root continues-as-new between every step, so the count must ride its carry.
  const input = world.input('t', { maxTreeSessions: 3, turnsPerRun: 1 });
  const h = await world.client.workflow.start('agentSessionWorkflow', { taskQueue: TQ, workflowId: input.sessionId, args: [input] });
  await expect(h.result()).resolves.toMatchObject({ status: 'completed' });
  expect((await h.describe()).runId).not.toBe(h.firstExecutionRunId);
  const a = `${input.sessionId}/a`;
  expect(refusals(a)).toEqual([expect.objectContaining({ name: 'c', limit: 'sessions_per_tree' })]);
  expect(refusals(input.sessionId)).toEqual([expect.objectContaining({ name: 'd', limit: 'sessions_per_tree' })]);
  expect(refusals(a)[0].reason).toContain('RECUR_MAX_TREE_SESSIONS=3');
  expect(errors(a)).toEqual([{ error: refusals(a)[0].reason }]);
});

test('message rate: past the burst, a send is refused as MessageRefused naming the limit', async () => {
  world.script = {
    root: [{ code: [
      { op: 'spawn', task: 'x', name: 'a' },
      { op: 'send', to: 'child:a', text: '1' }, { op: 'send', to: 'child:a', text: '2' }, { op: 'send', to: 'child:a', text: '3' },
    ] }, { answer: 'done' }],
    a: [{ code: [{ op: 'take', waitMs: 20_000 }] }, { answer: 'a' }],
  };
  const input = world.input('t', { messageBurst: 2, messagesPerMinute: 1 });
  await expect(run(input)).resolves.toMatchObject({ status: 'completed' });
  const events = world.events(input.sessionId);
  expect(events.filter((e) => e.type === 'MessageSent')).toHaveLength(2);
  const refused = events.filter((e) => e.type === 'MessageRefused');
  expect(refused).toEqual([expect.objectContaining({ to: 'child:a', reason: expect.stringContaining('message rate limit: at most 1 messages a minute (bursts of 2)') })]);
  expect(errors(input.sessionId)).toHaveLength(1);
});
