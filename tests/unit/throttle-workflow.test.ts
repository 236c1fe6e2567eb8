import type { ModelSwitched, ModelThrottled, SessionFailed } from '../../schemas/generated/events';
import type { SessionInput } from '../../workflows/session-types';
import type { CallModelInput } from '../../activities/call-model';
import { FakeSessionWorld, runToEnd } from '../helpers/fake-session-world';

/*
 * A throttled model call through the real workflow: logged, waited out on a workflow timer, and
 * made again as the same call; on the workflow's own path and in the worker's steps; a backup
 * taking over; a time budget that ends during the wait.
 */
jest.setTimeout(120_000);
let world: FakeSessionWorld;
const TQ = 'throttle-wait';

beforeAll(async () => {
  world = await FakeSessionWorld.start(TQ);
});
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => world.reset());

const run = (input: SessionInput) => runToEnd(world, TQ, input);

/** When each model call reached the provider (epoch ms), throttled or not. */
let calledAt: number[] = [];

/** Throttles the calls `which` picks, `times` times in all, each with a reset `resetMs` away. */
function throttleCalls(which: (i: CallModelInput) => boolean, times: number, resetMs = 200) {
  let left = times;
  calledAt = [];
  world.throttle = (i) => {
    calledAt.push(Date.now());
    if (!which(i) || left === 0) return null;
    left--;
    return { provider: 'anthropic', status: 429, reason: 'HTTP 429: rate_limit_error: slow down', resetAtMs: Date.now() + resetMs, model: i.model, idempotencyKey: `recur:${i.sessionId}:call:${i.callIndex}` };
  };
}

const throttles = (id: string) => world.events(id).filter((e): e is ModelThrottled => e.type === 'ModelThrottled');

test("the workflow's own call: each throttle is logged, waited out, and the same call made again until it passes", async () => {
  throttleCalls((i) => i.callIndex === 0, 2);
  world.script = { root: [{ answer: '42' }] };
  const input = world.input('t');
  expect(await run(input)).toBe('completed');
  expect(world.types(input.sessionId)).toEqual(['SessionStarted', 'ModelThrottled', 'ModelThrottled', 'ModelCalled', 'SessionCompleted']);
  expect(throttles(input.sessionId).map((t) => [t.attempt, t.status, t.provider, t.idempotencyKey])).toEqual([
    [1, 429, 'anthropic', `recur:${input.sessionId}:call:0`], [2, 429, 'anthropic', `recur:${input.sessionId}:call:0`],
  ]);
  // Each call again comes no sooner than the reset its throttle named (the wait itself may log as 0
  // when the failure took longer than the reset to reach the workflow).
  const [first, second] = throttles(input.sessionId);
  expect(calledAt[1]).toBeGreaterThanOrEqual(first.resetAt);
  expect(calledAt[2]).toBeGreaterThanOrEqual(second.resetAt);
  expect(world.modelCalls.filter((c) => c.sessionId === input.sessionId).map((c) => c.callIndex)).toEqual([0, 0, 0]);
});

test("in the worker's steps: the steps hand the throttle back, the workflow waits, and the session goes on", async () => {
  throttleCalls((i) => i.callIndex === 2, 1);
  world.script = { root: [{ code: [{ op: 'take' }] }, { code: [{ op: 'take' }] }, { answer: 'done' }] };
  const input = world.input('t');
  expect(await run(input)).toBe('completed');
  const types = world.types(input.sessionId);
  expect(types.filter((t) => t === 'ModelThrottled')).toHaveLength(1);
  expect(types.slice(-3)).toEqual(['ModelThrottled', 'ModelCalled', 'SessionCompleted']);
  expect(throttles(input.sessionId)[0].idempotencyKey).toBe(`recur:${input.sessionId}:call:2`);
});

test('the backup takes over once the primary has been throttled its minutes, logged as ModelSwitched (backup)', async () => {
  throttleCalls((i) => i.model === 'fake', 100);
  world.script = { root: [{ answer: 'from the backup' }] };
  const input = { ...world.input('t'), backup: { model: 'fake-backup', afterMinutes: 0 } };
  expect(await run(input)).toBe('completed');
  const switched = world.events(input.sessionId).filter((e): e is ModelSwitched => e.type === 'ModelSwitched');
  expect(switched).toEqual([expect.objectContaining({ model: 'fake-backup', previous: 'fake', reason: 'backup' })]);
  expect(world.types(input.sessionId)).toEqual(['SessionStarted', 'ModelThrottled', 'ModelSwitched', 'ModelCalled', 'SessionCompleted']);
  expect(world.modelCalls.filter((c) => c.sessionId === input.sessionId).map((c) => c.model)).toEqual(['fake', 'fake-backup']);
});

test('a time budget that runs out during the wait ends the session with its budget failure, the wait cut at the budget', async () => {
  throttleCalls(() => true, 100, 3_600_000);
  world.script = { root: [{ answer: 'never' }] };
  const input = world.input('t', { maxSeconds: 1 });
  expect(await run(input)).toContain('budget');
  const [first] = throttles(input.sessionId);
  expect(first.waitMs).toBeLessThanOrEqual(1000);
  expect(first.resetAt - Date.now()).toBeGreaterThan(60_000);
  const failed = world.events(input.sessionId).filter((e): e is SessionFailed => e.type === 'SessionFailed');
  expect(failed).toEqual([expect.objectContaining({ kind: 'budget' })]);
});
