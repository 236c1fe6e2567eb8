import { buildPrompt } from '../../activities/prompt/build-prompt';
import type { RecurEvent } from '../../schemas/generated/events';
import { deliverMessageSignal, getStatusQuery } from '../../workflows/messages';
import { OPERATOR_INTERRUPT_NOTE } from '../../workflows/operator-handlers';
import { compactNowUpdate, interruptCellUpdate, switchModelUpdate } from '../../workflows/operator-messages';
import type { SessionInput } from '../../workflows/session-types';
import { FakeSessionWorld } from '../helpers/fake-session-world';

/* A root that stays addressable after its answer (SessionInput.retain), and an operator's controls of a session. */
jest.setTimeout(120_000);
let world: FakeSessionWorld;
const TQ = 'continue-session';

beforeAll(async () => {
  // No workflow cache: each workflow task rebuilds the session from its history, as a restarted
  // worker would, so retained state and an operator's switch must come back from the history alone.
  world = await FakeSessionWorld.start(TQ, { maxCachedWorkflows: 0 });
});
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => world.reset());

async function until(what: string, ok: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}

const of = <T extends RecurEvent['type']>(id: string, type: T) =>
  world.events(id).filter((e): e is Extract<RecurEvent, { type: T }> => e.type === type);

async function start(input: SessionInput) {
  return world.client.workflow.start('agentSessionWorkflow', { taskQueue: TQ, workflowId: input.sessionId, args: [input] });
}

const say = (messageId: string, text: string) => ({ messageId, from: 'user', text });
const phase = async (h: Awaited<ReturnType<typeof start>>) => (await h.query(getStatusQuery)).phase;

describe('a retained root', () => {
  test('answers, idles with its workflow open, then answers a follow-up over its whole transcript; kill logs SessionClosed', async () => {
    world.script = { root: [{ answer: 'first answer' }, { answer: 'second answer' }] };
    const input = { ...world.input('the task'), retain: true };
    const id = input.sessionId;
    const h = await start(input);
    await until('the first answer', () => world.types(id).includes('SessionCompleted'));
    await until('the root to idle', async () => (await phase(h)) === 'idle');
    const open = await h.describe();
    expect(open.status.name).toBe('RUNNING');
    // What a listing shows without a query: the memo.
    expect(open.memo).toEqual({ phase: 'idle' });

    await h.signal(deliverMessageSignal, say('user#1', 'and a follow-up'));
    await until('the follow-up answer', () => world.types(id).includes('TaskEnded'));
    expect(world.types(id)).toEqual([
      'SessionStarted', 'ModelCalled', 'SessionCompleted', 'SessionResumed', 'MessageDelivered', 'ModelCalled', 'TaskEnded',
    ]);
    expect(of(id, 'SessionResumed')).toEqual([expect.objectContaining({ messageId: 'user#1', from: 'user', round: 1, unloaded: false })]);
    expect(of(id, 'TaskEnded')).toEqual([expect.objectContaining({ round: 1, status: 'completed', answer: 'second answer' })]);
    // The follow-up's prompt is the earlier transcript, then the message.
    const call = world.modelCalls.filter((c) => c.sessionId === id)[1];
    const prompt = buildPrompt((world.logs.get(id) ?? []).filter((e) => e.seq <= call.throughSeq));
    expect(prompt.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'the task'], ['assistant', 'first answer'], ['user', '[message from user] and a follow-up'],
    ]);

    await until('the root to idle again', async () => (await phase(h)) === 'idle');
    await h.cancel();
    await expect(h.result()).rejects.toThrow();
    expect(world.types(id).slice(-1)).toEqual(['SessionClosed']);
    expect(of(id, 'SessionClosed')).toEqual([expect.objectContaining({ round: 1, idle: true })]);
    expect(world.shutdowns).toContain(id);
  });

  test('unloads after its idle limit and reloads on the next message: SessionReloaded, then SessionResumed saying so', async () => {
    // No cell runs, so the unload has no namespace to snapshot first.
    world.script = { root: [{ answer: 'one' }, { answer: 'two' }] };
    const input = { ...world.input('t', { idleUnloadSeconds: 1 }), retain: true };
    const id = input.sessionId;
    const h = await start(input);
    await until('the unload', () => world.types(id).includes('SessionUnloaded'));
    expect(world.shutdowns).toContain(id);
    await until('the root to show unloaded', async () => (await phase(h)) === 'unloaded');
    expect((await h.describe()).memo).toEqual({ phase: 'unloaded' });
    await h.signal(deliverMessageSignal, say('user#2', 'wake up'));
    await until('the second answer', () => world.types(id).includes('TaskEnded'));
    const types = world.types(id);
    expect(types.slice(types.indexOf('SessionUnloaded'))).toEqual(['SessionUnloaded', 'SessionReloaded', 'SessionResumed', 'MessageDelivered', 'ModelCalled', 'TaskEnded']);
    const [resumed] = of(id, 'SessionResumed');
    expect(resumed).toMatchObject({ messageId: 'user#2', round: 1, unloaded: true });
    expect(resumed.idleSeconds).toBeGreaterThanOrEqual(1);
    await until('the memo to show the idle phase again after the round', async () => (await h.describe()).memo?.phase === 'idle');
    await h.cancel();
    await expect(h.result()).rejects.toThrow();
    expect(of(id, 'SessionClosed')).toEqual([expect.objectContaining({ round: 1, idle: true })]);
  });

  test('without retain a root still ends at its first answer', async () => {
    world.script = { root: [{ answer: 'done' }] };
    const input = world.input('t');
    await expect((await start(input)).result()).resolves.toEqual({ status: 'completed', answer: 'done' });
    expect(world.types(input.sessionId)).toEqual(['SessionStarted', 'ModelCalled', 'SessionCompleted']);
  });
});

describe('a continue-as-new', () => {
  test("carries the trace ids a step's riding batch takes: the new run's first batch has those the run before appended last", async () => {
    world.traceAppends = true;
    // One turn a run: each step after the first starts in a new run, with its batch riding before any append of that run's own.
    world.script = { root: [{ code: [] }, { code: [] }, { answer: 'done' }] };
    const input = world.input('t', { turnsPerRun: 1 });
    const h = await start(input);
    await expect(h.result()).resolves.toEqual({ status: 'completed', answer: 'done' });
    expect((await h.describe()).runId).not.toBe(h.firstExecutionRunId);
    const log = world.logs.get(input.sessionId) ?? [];
    expect(log.map((r) => r.type)).toEqual([
      'SessionStarted', 'ModelCalled', 'CellRequested', 'CellExecuted', 'ModelCalled', 'CellRequested', 'CellExecuted', 'ModelCalled', 'SessionCompleted',
    ]);
    expect(log.filter((r) => r.traceId === null).map((r) => `${r.seq} ${r.type}`)).toEqual([]);
  });
});

describe("an operator's controls", () => {
  test('a model switch is logged and used by every later call, across continue-as-new and worker replays', async () => {
    world.script = { root: [{ answer: 'first' }, { code: [] }, { answer: 'second' }] };
    // One turn a run: the follow-up's second call comes from a continued run.
    const input = { ...world.input('t', { turnsPerRun: 1 }), retain: true };
    const id = input.sessionId;
    const h = await start(input);
    await until('the first answer', () => world.types(id).includes('SessionCompleted'));
    await expect(h.executeUpdate(switchModelUpdate, { args: [{ model: 'fake-2' }] })).resolves.toEqual({ model: 'fake-2' });
    expect(of(id, 'ModelSwitched')).toEqual([expect.objectContaining({ model: 'fake-2', previous: 'fake' })]);
    // The same spec again switches nothing.
    await h.executeUpdate(switchModelUpdate, { args: [{ model: 'fake-2' }] });
    expect(of(id, 'ModelSwitched')).toHaveLength(1);
    await h.signal(deliverMessageSignal, say('user#3', 'go on'));
    await until('the follow-up answer', () => world.types(id).includes('TaskEnded'));
    expect(world.modelCalls.filter((c) => c.sessionId === id).map((c) => c.model)).toEqual(['fake', 'fake-2', 'fake-2']);
    expect((await world.client.workflow.getHandle(id).describe()).runId).not.toBe(h.firstExecutionRunId);
    await world.client.workflow.getHandle(id).cancel();
  });

  test('a compaction asked for is made by the next model call only, and logged as manual', async () => {
    world.script = { root: [{ answer: 'first' }, { code: [] }, { answer: 'second' }] };
    const input = { ...world.input('t'), retain: true };
    const id = input.sessionId;
    const h = await start(input);
    await until('the first answer', () => world.types(id).includes('SessionCompleted'));
    await expect(h.executeUpdate(compactNowUpdate)).resolves.toEqual({ requested: true });
    await h.signal(deliverMessageSignal, say('user#4', 'go on'));
    await until('the follow-up answer', () => world.types(id).includes('TaskEnded'));
    expect(world.modelCalls.filter((c) => c.sessionId === id).map((c) => c.compactNow ?? false)).toEqual([false, true, false]);
    const types = world.types(id);
    expect(types.slice(types.indexOf('MessageDelivered'), types.indexOf('MessageDelivered') + 3)).toEqual(['MessageDelivered', 'Compacted', 'ModelCalled']);
    expect(of(id, 'Compacted')).toEqual([expect.objectContaining({ manual: true })]);
    await h.cancel();
  });

  test('an interrupt stops the running cell, which is logged as interrupted by the operator; the session goes on', async () => {
    world.script = { root: [{ code: [{ op: 'block' }] }, { answer: 'carried on' }] };
    const input = world.input('t');
    const id = input.sessionId;
    const h = await start(input);
    await until('the cell to run', () => world.isBlocked(id));
    await expect(h.executeUpdate(interruptCellUpdate)).resolves.toEqual({ interrupted: true });
    await expect(h.result()).resolves.toEqual({ status: 'completed', answer: 'carried on' });
    expect(world.interrupts).toEqual([id]);
    const [cell] = of(id, 'CellExecuted');
    expect(cell).toMatchObject({ status: 'interrupted', errorName: 'KeyboardInterrupt' });
    expect(cell.outputs).toBe(`KeyboardInterrupt\n${OPERATOR_INTERRUPT_NOTE}`);
    // What the model read next: the cell's output with the note.
    const call = world.modelCalls.filter((c) => c.sessionId === id)[1];
    const prompt = buildPrompt((world.logs.get(id) ?? []).filter((e) => e.seq <= call.throughSeq));
    expect(prompt.messages.at(-1)?.content).toContain(OPERATOR_INTERRUPT_NOTE);
  });

  test('an interrupt with no cell running sends nothing and says so', async () => {
    world.script = { root: [{ answer: 'done' }] };
    const input = { ...world.input('t'), retain: true };
    const h = await start(input);
    await until('the root to idle', async () => world.types(input.sessionId).includes('SessionCompleted') && (await phase(h)) === 'idle');
    await expect(h.executeUpdate(interruptCellUpdate)).resolves.toEqual({ interrupted: false });
    expect(world.interrupts).not.toContain(input.sessionId);
    await h.cancel();
  });
});
