import { WorkflowFailedError } from '@temporalio/client';
import type { RecurEventInput, SessionFailed } from '../../schemas/generated/events';
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

/** The tree's child has ended (it was told to), whatever state it was in. */
async function childEnded(childId: string): Promise<boolean> {
  try {
    await world.client.workflow.getHandle(childId).result();
  } catch {
    /* failed or cancelled: ended */
  }
  const d = await world.client.workflow.getHandle(childId).describe();
  return d.status.name !== 'RUNNING';
}

describe('an append that fails at any site ends the session with SessionFailed', () => {
  test.each([
    'SessionStarted', 'CellRequested', 'SubagentSpawned', 'MessageSent', 'MessageDelivered',
    'HarnessEditRequested', 'CellExecuted', 'SubagentCompleted',
  ])('the root append of %s fails: SessionFailed names it, the kernel is freed, the child is ended', async (site) => {
    family();
    // The child's answer is the message the root takes: waited for, or a loaded machine has the
    // root take an empty inbox and answer first, and the site is never reached.
    if (site === 'MessageDelivered') world.script.root[1] = { code: [{ op: 'take', waitMs: 20_000 }, { op: 'harness' }, { op: 'final', answer: 'all done' }] };
    const input = world.input('t');
    let failedOnce = false;
    world.failAppend = (e, sid) => {
      if (sid !== input.sessionId || e.type !== site || failedOnce) return false;
      failedOnce = true;
      return true;
    };
    const r = await run(input);
    expect(failedOnce).toBe(true);
    expect(r.status).toBe('failed');
    const types = world.types(input.sessionId);
    expect(types[types.length - 1]).toBe('SessionFailed');
    expect(types).not.toContain('SessionCompleted');
    const [end] = failed(input.sessionId);
    expect(end.kind).toBe('internal');
    expect(end.reason).toContain(`injected: the log refused ${site}`);
    expect(r.message).toContain(`the log refused ${site}`);
    expect(world.shutdowns).toContain(input.sessionId);
    if (world.events(input.sessionId).some((e) => e.type === 'SubagentSpawned')) expect(await childEnded(`${input.sessionId}/a`)).toBe(true);
  });

  test('the root answer cannot be logged: a minimal SessionFailed says so and the run fails', async () => {
    family();
    const input = world.input('t');
    world.failAppend = (e, sid) => sid === input.sessionId && e.type === 'SessionCompleted';
    const r = await run(input);
    expect(r.status).toBe('failed');
    const [end] = failed(input.sessionId);
    expect(end.reason).toMatch(/^the answer could not be logged; logging the end failed: appendEvents failed for good: injected/);
    expect(world.types(input.sessionId)).not.toContain('SessionCompleted');
  });

  test('a child whose answer cannot be logged ends failed, and its parent hears that (not an answer)', async () => {
    world.script = { root: [{ code: [{ op: 'spawn', task: 'child task', name: 'a' }] }, { answer: 'root done' }], a: [{ answer: 'child answer' }] };
    const input = world.input('t');
    const childId = `${input.sessionId}/a`;
    world.failAppend = (e, sid) => sid === childId && e.type === 'SessionCompleted';
    // The root waits for its child's outcome (a message) before answering, so it sees the outcome first.
    world.script.root[1] = { code: [{ op: 'take', waitMs: 20_000 }] };
    world.script.root[2] = { answer: 'root done' };
    await run(input);
    expect(failed(childId)).toHaveLength(1);
    const outcome = world.events(input.sessionId).find((e) => e.type === 'SubagentCompleted');
    expect(outcome).toMatchObject({ status: 'failed', answer: '' });
    expect(world.shutdowns).toContain(childId);
  });

  test('a child whose cell result cannot be logged fails with SessionFailed, and its parent hears why', async () => {
    world.script = {
      root: [{ code: [{ op: 'spawn', task: 'child task', name: 'a' }] }, { code: [{ op: 'take', waitMs: 20_000 }] }, { answer: 'root done' }],
      a: [{ code: [{ op: 'take' }] }, { answer: 'never' }],
    };
    const input = world.input('t');
    const childId = `${input.sessionId}/a`;
    world.failAppend = (e, sid) => sid === childId && e.type === 'CellExecuted';
    await run(input);
    expect(failed(childId)).toEqual([expect.objectContaining({ kind: 'internal', reason: expect.stringContaining('the log refused CellExecuted') })]);
    const outcome = world.events(input.sessionId).find((e) => e.type === 'SubagentCompleted');
    expect(outcome).toMatchObject({ status: 'failed', error: expect.stringContaining('the log refused CellExecuted') });
    expect(world.shutdowns).toContain(childId);
  });

  test('the SessionFailed itself cannot be appended: the fallback (clipped) SessionFailed is', async () => {
    family();
    const input = world.input('t');
    let sessionFailedTries = 0;
    world.failAppend = (e, sid) => {
      if (sid !== input.sessionId) return false;
      if (e.type === 'CellExecuted') return true;
      return e.type === 'SessionFailed' && ++sessionFailedTries === 1;
    };
    const r = await run(input);
    expect(r.status).toBe('failed');
    expect(sessionFailedTries).toBe(2);
    const [end] = failed(input.sessionId);
    expect(end.reason).toContain('logging the end failed');
    expect(end.reason.length).toBeLessThanOrEqual(2000);
  });

  test('no SessionFailed can be appended at all: the workflow still fails (SessionEndNotLogged) and the kernel is freed', async () => {
    family();
    const input = world.input('t');
    world.failAppend = (e, sid) => sid === input.sessionId && (e.type === 'CellExecuted' || e.type === 'SessionFailed');
    const r = await run(input);
    expect(r.status).toBe('failed');
    expect(r.message).toContain('its end could not be logged');
    expect(failed(input.sessionId)).toHaveLength(0);
    expect(world.shutdowns).toContain(input.sessionId);
    expect(await childEnded(`${input.sessionId}/a`)).toBe(true);
  });

  test('a bug in the loop (a malformed activity result) ends the session with SessionFailed internal', async () => {
    world.corruptModel = true;
    const input = world.input('t');
    const r = await run(input);
    expect(r.status).toBe('failed');
    const [end] = failed(input.sessionId);
    expect(end.kind).toBe('internal');
    expect(end.reason).toMatch(/^TypeError: /);
  });
});

describe('a cancellation never forks the log', () => {
  /** Starts a session and cancels it while the first append of an event `match` takes waits to write; `release` lets it write. */
  async function cancelWhileHeld(script: typeof world.script, match: (e: RecurEventInput) => boolean) {
    world.script = script;
    let reached!: () => void;
    const inFlight = new Promise<void>((r) => (reached = r));
    let release!: () => void;
    world.hold = { match, reached, until: new Promise<void>((r) => (release = r)) };
    const input = world.input('t');
    const handle = await world.client.workflow.start('agentSessionWorkflow', { taskQueue: TQ, workflowId: input.sessionId, args: [input] });
    await inFlight;
    await handle.cancel();
    return { input, handle, release };
  }

  test('a session cancelled while an append is in flight logs its end after that append, at the next seq', async () => {
    const { input, handle, release } = await cancelWhileHeld({ root: [{ answer: 'never given' }] }, (e) => e.type === 'SessionStarted');
    // The workflow has taken the cancellation (a workflow task completed after the request) while the append still waits.
    for (;;) {
      const events = (await handle.fetchHistory()).events ?? [];
      const asked = events.findIndex((e) => e.workflowExecutionCancelRequestedEventAttributes);
      if (asked >= 0 && events.slice(asked).some((e) => e.workflowTaskCompletedEventAttributes)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    release();
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect(world.conflicts).toEqual([]);
    expect(world.types(input.sessionId)).toEqual(['SessionStarted', 'SessionFailed']);
  });

  test('a session cancelled while its cell activity writes the CellRequested logs the cell\'s end after it, and the late write forks nothing', async () => {
    // The CellRequested rides the cell's activity (SessionLog.ride): this holds that activity's append.
    const { input, handle, release } = await cancelWhileHeld({ root: [{ code: [{ op: 'final', answer: 'never run' }] }, { answer: 'done' }] }, (e) => e.type === 'CellRequested');
    // The session ends without waiting for the held write: the cell's end is logged after the batch it rode with.
    await expect(handle.result()).rejects.toBeInstanceOf(WorkflowFailedError);
    expect(world.types(input.sessionId).slice(1)).toEqual(['ModelCalled', 'CellRequested', 'CellExecuted', 'SessionFailed']);
    expect(world.events(input.sessionId).find((e) => e.type === 'CellExecuted')).toMatchObject({ status: 'interrupted' });
    expect(world.cellInputs.filter((c) => c.sessionId === input.sessionId)).toEqual([]);
    // The held write lands afterwards: the same bytes at the same seqs.
    release();
    while (!world.cellInputs.some((c) => c.sessionId === input.sessionId)) await new Promise((r) => setTimeout(r, 20));
    expect(world.conflicts).toEqual([]);
    expect(world.types(input.sessionId).slice(1)).toEqual(['ModelCalled', 'CellRequested', 'CellExecuted', 'SessionFailed']);
  });
});
