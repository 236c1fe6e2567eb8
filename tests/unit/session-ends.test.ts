import { WorkflowFailedError } from '@temporalio/client';
import type { SessionFailed } from '../../schemas/generated/events';
import { getChildrenQuery } from '../../workflows/messages';
import type { SessionInput } from '../../workflows/session-types';
import { FakeSessionWorld } from '../helpers/fake-session-world';

jest.setTimeout(120_000);
let world: FakeSessionWorld;
const TQ = 'session-ends';

beforeAll(async () => {
  world = await FakeSessionWorld.start(TQ);
});
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => world.reset());

/** Runs a root to its end: 'completed' or the Temporal failure's message. */
async function run(input: SessionInput): Promise<{ status: 'completed' | 'failed'; message: string }> {
  try {
    await world.client.workflow.execute('agentSessionWorkflow', { taskQueue: TQ, workflowId: input.sessionId, args: [input] });
    return { status: 'completed', message: '' };
  } catch (e) {
    if (!(e instanceof WorkflowFailedError)) throw e;
    return { status: 'failed', message: e.cause?.message ?? e.message };
  }
}

const failed = (id: string) => world.events(id).filter((e): e is SessionFailed => e.type === 'SessionFailed');

/** A root that spawns a child, messages it, reads its inbox and answers; the child answers at once. */
function family(): void {
  world.script = {
    root: [
      { code: [{ op: 'spawn', task: 'child task', name: 'a' }, { op: 'send', to: 'child:a', text: 'hello' }] },
      { code: [{ op: 'take' }, { op: 'harness' }, { op: 'final', answer: 'all done' }] },
    ],
    a: [{ answer: 'child answer' }],
  };
}

describe('a session always ends with a terminal event', () => {
  test('an undisturbed family run completes (the scenario the failure tests disturb)', async () => {
    family();
    const input = world.input('t');
    const r = await run(input);
    expect(r.status).toBe('completed');
    expect(world.types(input.sessionId)).toEqual(expect.arrayContaining([
      'SessionStarted', 'SubagentSpawned', 'MessageSent', 'CellExecuted', 'HarnessEditRequested', 'SessionCompleted',
    ]));
    expect(world.types(`${input.sessionId}/a`)).toContain('SessionCompleted');
  });
});
