import type { ModelCalled } from '../../schemas/generated/events';
import type { CostNode } from '../../services/projector/cost-tree';
import { recur } from '../helpers/run-cli';
import { SessionHarness, py, scriptsDir } from '../helpers/session-harness';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A child that would run cells far past any budget here. */
const busy = (n: number) => [...Array.from({ length: n }, (_, i) => py(`x = ${i}`)), 'never reached'];
/**
 * A child's first cell: it waits, polling the workspace the two children share with their parent,
 * until the other child has started too. Without it the child whose kernel came up first (a start
 * takes about a second) could spend the whole budget before the other's second call.
 */
const meet = (self: string, other: string) => py(`
import os, time
open("${self}.started", "w").close()
deadline = time.monotonic() + 60
while not os.path.exists("${other}.started"):
    if time.monotonic() > deadline:
        raise RuntimeError("${other} never started")
    time.sleep(0.01)
`);
const waitBoth = py(`
for h in (ha, hb):
    try:
        h.result()
    except Exception as e:
        print(type(e).__name__, e)
`);

describe('tree-wide budgets (real stack; scripted model)', () => {
  const h = new SessionHarness();
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  it('two children running at once spend one budget: the tree ends with one wrap-up at the root, SessionFailed budget, every child ended', async () => {
    const limit = 8000;
    const run = await h.run({
      root: [
        py('ha = rlm("count up", name="a", budget_tokens=10**9)\nhb = rlm("count down", name="b")'),
        waitBoth, 'Report: both children ran out of budget.', 'Report: both children ran out of budget.',
      ],
      a: [meet('a', 'b'), ...busy(60)], b: [meet('b', 'a'), ...busy(60)],
    }, 'split the work', { maxTokens: limit });
    const root = run.id;
    const [a, b] = [`${root}/a`, `${root}/b`];
    expect(run.result).toMatchObject({ status: 'failed', kind: 'budget' });
    const end = run.of('SessionFailed')[0];
    expect(end).toMatchObject({ kind: 'budget', reason: expect.stringMatching(new RegExp(`^tree token budget spent: \\d+ of ${limit} tokens; wrapped up$`)) });
    expect(run.of('BudgetSet')).toEqual([expect.objectContaining({ scope: 'tree', tokens: limit })]);
    expect(run.of('ContinuationInjected').filter((c) => c.reason === 'wrap_up')).toHaveLength(1);
    // Invariant 11: each child ends with its own terminal event, stopped by the tree's budget.
    for (const child of [a, b]) {
      const types = run.types(child);
      expect(types[types.length - 1]).toBe('SessionFailed');
      expect(run.of('SessionFailed', child)[0]).toMatchObject({ kind: 'budget', reason: expect.stringMatching(/^tree token budget spent/) });
      expect(run.of('ModelCalled', child).length).toBeGreaterThan(1);
    }
    // The slice a asked for was more than the tree had left: capped at what remained, and logged so.
    const slice = run.of('BudgetSet', a)[0];
    expect(slice).toMatchObject({ scope: 'slice', askedTokens: 1e9, note: expect.stringMatching(/^the slice was capped at what remains: 1000000000 tokens asked, \d+ remain$/) });
    expect(slice.tokens).toBeLessThan(limit);
    expect(run.of('CellExecuted')[0].outputs).toContain('[rlm a] the slice was capped at what remains');
    // The bound: what the tree spent before the root's wrap-up call passes the limit by at most one call.
    const calls = [root, a, b].flatMap((id) => run.of('ModelCalled', id));
    const size = (c: ModelCalled) => c.tokensIn + c.tokensOut;
    const wrapUp = run.of('ModelCalled').at(-1)!;
    const before = calls.reduce((n, c) => n + size(c), 0) - size(wrapUp);
    expect(before).toBeGreaterThanOrEqual(limit);
    expect(before - limit).toBeLessThanOrEqual(Math.max(...calls.map(size)));

    // recur cost reads the same log: its per-agent figures are the ModelCalled events' sums.
    const cost = await recur(['cost', root, '--json']);
    expect(cost.code).toBe(0);
    const tree = JSON.parse(cost.lines[0]) as CostNode;
    const sum = (id: string) => run.of('ModelCalled', id).reduce((s, c) => ({ in: s.in + c.tokensIn, out: s.out + c.tokensOut }), { in: 0, out: 0 });
    expect(tree.children.map((c) => c.sessionId)).toEqual([a, b]);
    for (const node of [tree, ...tree.children]) {
      expect([node.own.tokensIn, node.own.tokensOut, node.own.calls]).toEqual([sum(node.sessionId).in, sum(node.sessionId).out, run.of('ModelCalled', node.sessionId).length]);
    }
    expect(tree.total.tokensIn + tree.total.tokensOut).toBe(before + size(wrapUp));
    expect(tree.status).toBe('failed (budget)');
    const text = await recur(['cost', root]);
    expect(text.lines[0]).toMatch(new RegExp(`^cost of ${root}: ${calls.length} calls, `));
  }, 240_000);

  it('recur run --budget-tokens sets the tree budget through the daemon: logged at start, and the run ends on it after a wrap-up', async () => {
    const file = join(scriptsDir(h.config), 'budget-flag.json');
    writeFileSync(file, JSON.stringify({ agents: { root: [py('x = 1'), 'Report: one step done.'] } }));
    const { code, lines } = await recur(['run', 'one step', '--budget-tokens', '1', '--model', `scripted:${file}`, '--json']);
    expect(code).toBe(1);
    const events = lines.map((l) => JSON.parse(l));
    expect(events.map((e) => e.type)).toEqual([
      'SessionStarted', 'BudgetSet', 'ModelCalled', 'CellRequested', 'CellExecuted', 'ContinuationInjected', 'ModelCalled', 'SessionFailed',
    ]);
    expect(events[1].event).toMatchObject({ scope: 'tree', tokens: 1, costUsd: null, seconds: null, turns: null });
    expect(events.at(-1).event).toMatchObject({ kind: 'budget', reason: expect.stringMatching(/^tree token budget spent: \d+ of 1 tokens; wrapped up$/) });
  }, 120_000);

  it('a goal run without --autonomous says its turn cap at start, logs it, and ends at it with SessionFailed max_turns saying so', async () => {
    const file = join(scriptsDir(h.config), 'goal-cap.json');
    const maxTurns = h.config.agent.maxTurns;
    writeFileSync(file, JSON.stringify({ agents: { root: Array.from({ length: maxTurns + 1 }, (_, i) => `still working (${i})`) } }));
    const { code, lines, stderr } = await recur(['run', 'work on it', '--goal', 'never quite met', '--model', `scripted:${file}`, '--json']);
    expect(code).toBe(1);
    expect(stderr).toContain(`turn cap: this goal run stops after ${maxTurns} model turns (RECUR_MAX_TURNS)`);
    const events = lines.map((l) => JSON.parse(l));
    expect(events.find((e) => e.type === 'GoalChanged')).toMatchObject({ event: { change: 'set', reason: expect.stringContaining(`stops after ${maxTurns} model turns`) } });
    expect(events.at(-1)).toMatchObject({
      type: 'SessionFailed', event: { kind: 'max_turns', reason: expect.stringMatching(new RegExp(`^turn limit reached: ${maxTurns} of ${maxTurns} model turns used .*; wrapped up$`)) },
    });
  }, 240_000);
});
