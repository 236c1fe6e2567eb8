import type { ModelCalled, RecurEvent } from '../../schemas/generated/events';
import type { SessionInput } from '../../workflows/session-types';
import { carriedBatches } from '../helpers/carried-batches';
import { FakeSessionWorld, type Reply } from '../helpers/fake-session-world';

/* The tree's budget on real workflows (Temporal's test server, fake activities): counted at the root across concurrent children. */
jest.setTimeout(120_000);
let world: FakeSessionWorld;
const TQ = 'tree-budget';

beforeAll(async () => {
  world = await FakeSessionWorld.start(TQ);
});
afterAll(async () => {
  await world?.stop();
});
beforeEach(() => world.reset());

const run = (input: SessionInput) => world.client.workflow.execute('agentSessionWorkflow', { taskQueue: TQ, workflowId: input.sessionId, args: [input] }).catch((e: Error) => e);
const last = (id: string): RecurEvent | undefined => world.events(id).at(-1);
const calls = (id: string) => world.events(id).filter((e): e is ModelCalled => e.type === 'ModelCalled');
const tokens = (id: string) => calls(id).reduce((n, e) => n + e.tokensIn + e.tokensOut, 0);
/** Many cells in a row: a child that would go on well past any budget here. */
const busy = (n: number): Reply[] => [...Array.from({ length: n }, () => ({ code: [] })), { answer: 'never reached' }];

test('two children running at once spend one tree budget: they are refused, the root wraps up once and fails naming it', async () => {
  world.tokensPerCall = { in: 3, out: 2 };
  world.script = {
    root: [
      { code: [{ op: 'spawn', task: 'x', name: 'a' }, { op: 'spawn', task: 'y', name: 'b' }] },
      { code: [{ op: 'take', waitMs: 20_000 }] }, { code: [{ op: 'take', waitMs: 20_000 }] }, { code: [{ op: 'take', waitMs: 20_000 }] },
      { answer: 'wrap-up report' }, { answer: 'wrap-up report' }, { answer: 'wrap-up report' },
    ],
    a: busy(40), b: busy(40),
  };
  const input = world.input('t', { maxTokens: 100 });
  const root = input.sessionId;
  await run(input);
  const [a, b] = [`${root}/a`, `${root}/b`];
  expect(world.events(root)[1]).toMatchObject({ type: 'BudgetSet', scope: 'tree', tokens: 100, costUsd: null, seconds: null, turns: null });
  for (const child of [a, b]) {
    expect(last(child)).toMatchObject({ type: 'SessionFailed', kind: 'budget', reason: expect.stringMatching(/^tree token budget spent: \d+ of 100 tokens$/) });
  }
  expect(last(root)).toMatchObject({ type: 'SessionFailed', kind: 'budget', reason: expect.stringMatching(/^tree token budget spent: \d+ of 100 tokens; wrapped up$/) });
  expect(world.events(root).filter((e) => e.type === 'ContinuationInjected' && e.reason === 'wrap_up')).toHaveLength(1);
  // Both children made calls at the same time, and neither ran to its answer.
  expect(calls(a).length).toBeGreaterThan(1);
  expect(calls(b).length).toBeGreaterThan(1);
  // Every call was 5 tokens: the calls admitted may pass the limit by one call, and the root's wrap-up is one more.
  const spent = tokens(root) + tokens(a) + tokens(b);
  expect(spent).toBeGreaterThanOrEqual(100);
  expect(spent).toBeLessThanOrEqual(100 + 5 + 5);
});

test("a child's cell end rides its ask of the root: below a budgeted root a step takes no append activity of its own", async () => {
  world.script = {
    root: [{ code: [{ op: 'spawn', task: 'x', name: 'a' }, { op: 'take', waitMs: 20_000 }] }, { answer: 'done' }],
    a: [{ code: [] }, { code: [] }, { answer: 'a done' }],
  };
  const input = world.input('t', { maxTokens: 10_000 });
  await run(input);
  const a = `${input.sessionId}/a`;
  expect(last(a)).toMatchObject({ type: 'SessionCompleted', answer: 'a done' });
  const batches = carriedBatches(await world.client.workflow.getHandle(a).fetchHistory());
  // The ask before each later model call writes the last cell's end before it asks.
  expect(batches.filter((b) => b.types.includes('CellExecuted')).map((b) => [b.by, b.types])).toEqual(Array(2).fill(['chargeTreeBudget', ['CellExecuted']]));
  expect(world.conflicts).toEqual([]);
});

test("the root's ledger rides its continue-as-new: a slice granted in one run still holds in the next", async () => {
  world.tokensPerCall = { in: 3, out: 2 };
  world.script = {
    root: [{ code: [{ op: 'spawn', task: 'x', name: 'a', slice: { tokens: 30, costUsd: null } }] }, { code: [{ op: 'take', waitMs: 20_000 }] }, { answer: 'done' }],
    a: busy(40),
  };
  // One turn per run: the child's asks land on later runs of the root than the one that granted its slice.
  const input = world.input('t', { maxTokens: 10_000, turnsPerRun: 1 });
  const h = await world.client.workflow.start('agentSessionWorkflow', { taskQueue: TQ, workflowId: input.sessionId, args: [input] });
  await expect(h.result()).resolves.toMatchObject({ status: 'completed' });
  expect((await h.describe()).runId).not.toBe(h.firstExecutionRunId);
  const a = `${input.sessionId}/a`;
  expect(last(a)).toMatchObject({ type: 'SessionFailed', kind: 'budget', reason: `slice of ${a}: token budget spent: 30 of 30 tokens` });
  expect(tokens(a)).toBe(30);
});

test("a child's slice bigger than what remains is capped at what remains, and the cap is logged and told to the kernel", async () => {
  world.tokensPerCall = { in: 5, out: 5 };
  world.script = {
    root: [{ code: [{ op: 'spawn', task: 'x', name: 'a', slice: { tokens: 1000, costUsd: null } }] }, { code: [{ op: 'take', waitMs: 20_000 }] }, { answer: 'report' }],
    a: busy(40),
  };
  const input = world.input('t', { maxTokens: 200 });
  await run(input);
  const a = `${input.sessionId}/a`;
  // The root had spent one 10-token call when it spawned: 190 remained.
  expect(world.cellResults.get(input.sessionId)![0][0]).toMatchObject({ ok: true, capped: 'the slice was capped at what remains: 1000 tokens asked, 190 remain' });
  expect(world.events(a)[1]).toMatchObject({ type: 'BudgetSet', scope: 'slice', tokens: 190, askedTokens: 1000, note: expect.stringContaining('capped') });
  // The root's own calls count against the tree too while the child runs: the child gets at most its slice.
  expect(tokens(a)).toBeLessThanOrEqual(190);
  expect(last(a)).toMatchObject({ type: 'SessionFailed', kind: 'budget' });
});

test('a child spends no more than its slice; a spent slice ends only its subtree, and the tree goes on', async () => {
  world.tokensPerCall = { in: 5, out: 5 };
  world.script = {
    root: [{ code: [{ op: 'spawn', task: 'x', name: 'a', slice: { tokens: 30, costUsd: null } }] }, { code: [{ op: 'take', waitMs: 20_000 }] }, { answer: 'done' }],
    a: busy(40),
  };
  const input = world.input('t', { maxTokens: 10_000 });
  await run(input);
  const a = `${input.sessionId}/a`;
  expect(world.cellResults.get(input.sessionId)![0][0]).toMatchObject({ ok: true, capped: null });
  expect(last(a)).toMatchObject({ type: 'SessionFailed', kind: 'budget', reason: `slice of ${a}: token budget spent: 30 of 30 tokens` });
  expect(tokens(a)).toBe(30);
  expect(last(input.sessionId)).toMatchObject({ type: 'SessionCompleted', answer: 'done' });
});

test("a goal's token budget counts what its children spent", async () => {
  world.script = {
    root: [{ code: [{ op: 'spawn', task: 'x', name: 'a' }] }, { code: [{ op: 'take', waitMs: 20_000 }] }, { answer: 'not yet' }, { answer: 'report' }],
    a: [{ code: [] }, { code: [] }, { code: [] }, { code: [] }, { answer: 'a done' }],
  };
  // Before the root's third call it has spent 4 tokens itself; with the child's 10 the goal's 12 are spent (alone it never would be).
  const input: SessionInput = { ...world.input('t'), goal: { objective: 'o', openEnded: false, tokenBudget: 12, secondsBudget: null, costBudgetUsd: null } };
  await run(input);
  const goal = world.events(input.sessionId).filter((e) => e.type === 'GoalChanged');
  expect(goal.at(-1)).toMatchObject({ change: 'budget_limited', tokensUsed: 14, reason: 'goal token budget spent: 14 of 12 tokens' });
  expect(last(input.sessionId)).toMatchObject({ type: 'SessionFailed', kind: 'budget' });
});

test('a goal run without autonomous mode states its turn cap in the goal it logs at start, and ends there saying so', async () => {
  world.script = { root: [{ answer: 'one' }, { answer: 'two' }, { answer: 'wrap-up' }] };
  const input: SessionInput = { ...world.input('t', { maxTurns: 2 }), goal: { objective: 'o', openEnded: false, tokenBudget: null, secondsBudget: null, costBudgetUsd: null } };
  await run(input);
  const set = world.events(input.sessionId).find((e) => e.type === 'GoalChanged');
  expect(set).toMatchObject({ change: 'set', reason: expect.stringContaining('stops after 2 model turns (RECUR_MAX_TURNS)') });
  expect(last(input.sessionId)).toMatchObject({ type: 'SessionFailed', kind: 'max_turns', reason: expect.stringMatching(/^turn limit reached: 2 of 2 model turns used .*; wrapped up$/) });
});
