import { TreeLedger, type TreeBudget } from '../../workflows/tree-ledger';

const NONE: TreeBudget = { tokens: null, costUsd: null, seconds: null, turns: null };
const spend = (tokens: number, costUsd = 0, turns = 1) => ({ tokens, costUsd, turns });

describe("the tree's ledger (kept by the root)", () => {
  it('sums every session of the tree, and a repeated or stale report changes nothing', () => {
    const l = new TreeLedger(NONE, 0);
    l.record('r', spend(100, 0.1, 1));
    l.record('r/a', spend(50, 0.05, 2));
    l.record('r/a', spend(50, 0.05, 2));
    l.record('r/a', spend(20, 0.01, 1));
    expect(l.total()).toEqual({ tokens: 150, costUsd: expect.closeTo(0.15), turns: 3 });
    expect(l.total('r/a')).toEqual({ tokens: 50, costUsd: 0.05, turns: 2 });
  });

  it("refuses a call anywhere in the tree once a tree budget is spent, names it, and sets the tree's stop", () => {
    const l = new TreeLedger({ ...NONE, tokens: 1000 }, 0);
    l.record('r', spend(400));
    l.record('r/a', spend(600));
    expect(l.admit('r/b', 0)).toEqual({ ok: false, scope: 'tree', reason: 'tree token budget spent: 1000 of 1000 tokens' });
    expect(l.stop).toBe('tree token budget spent: 1000 of 1000 tokens');
    // Once stopped, every session is told the same, whatever is reported after.
    expect(l.admit('r', 0)).toMatchObject({ ok: false, scope: 'tree' });
  });

  it.each([
    [{ costUsd: 1 }, spend(0, 1), 'tree cost budget spent: $1.0000 of $1'],
    [{ turns: 3 }, spend(0, 0, 3), 'tree turn budget spent: 3 of 3 model turns'],
  ])('names the budget that is spent: %j', (budget, spent, reason) => {
    const l = new TreeLedger({ ...NONE, ...budget }, 0);
    l.record('r/a', spent);
    expect(l.admit('r', 0)).toEqual({ ok: false, scope: 'tree', reason });
  });

  it("counts the tree's time from the root's start", () => {
    const l = new TreeLedger({ ...NONE, seconds: 60 }, 1_000);
    expect(l.admit('r/a', 60_999)).toEqual({ ok: true });
    expect(l.admit('r/b', 61_000)).toEqual({ ok: false, scope: 'tree', reason: 'tree time budget spent: 60s of 60s' });
  });

  it('holds a concurrent call while the calls in flight, each as large as the largest so far, could pass the budget', () => {
    const l = new TreeLedger({ ...NONE, tokens: 1000 }, 0);
    // Nothing reported yet: nothing says what a call costs, so calls go one at a time.
    expect(l.admit('r/a', 0)).toEqual({ ok: true });
    expect(l.admit('r/b', 0)).toHaveProperty('wait');
    l.record('r/a', spend(200));
    // 200 spent and a call is ~200: up to four in flight fit (200 + 4 × 200 ≤ 1000), a fifth does not.
    for (const id of ['r/a', 'r/b', 'r/c', 'r/d']) expect(l.admit(id, 0)).toEqual({ ok: true });
    expect(l.admit('r/e', 0)).toHaveProperty('wait');
    l.record('r/a', spend(400, 0, 2));
    l.record('r/b', spend(200));
    l.record('r/c', spend(200));
    // 800 spent, r/d in flight: r/e waits for it…
    expect(l.admit('r/e', 0)).toHaveProperty('wait');
    l.record('r/d', spend(150));
    // …and, alone, is granted while anything remains: the last call may pass the budget by its own size.
    expect(l.admit('r/e', 0)).toEqual({ ok: true });
  });

  it("closes a granted call only on a report with a turn more, or the session's end: a late report of an earlier call leaves it open", () => {
    const l = new TreeLedger({ ...NONE, tokens: 12 }, 0);
    l.record('r/a', spend(5, 0, 1));
    expect(l.admit('r/a', 0)).toEqual({ ok: true });
    l.record('r/a', spend(5, 0, 1));
    expect(l.admit('r/b', 0)).toHaveProperty('wait');
    l.record('r/a', spend(6, 0, 2));
    expect(l.admit('r/b', 0)).toEqual({ ok: true });
    // r/b's call failed: it reports no new turn, but its end still gives back its room.
    l.record('r/b', spend(0, 0, 0), true);
    expect(l.carry().open).toEqual({});
  });

  it('grants turns exactly: calls in flight count as turns taken', () => {
    const l = new TreeLedger({ ...NONE, turns: 2 }, 0);
    l.record('r', spend(10, 0, 1));
    expect(l.admit('r/a', 0)).toEqual({ ok: true });
    expect(l.admit('r/b', 0)).toHaveProperty('wait');
  });

  it("caps a child's slice at what remains above it, saying so", () => {
    const l = new TreeLedger({ ...NONE, tokens: 1000, costUsd: 5 }, 0);
    l.record('r', spend(700, 1));
    expect(l.grantSlice('r/a', { tokens: 500, costUsd: null })).toEqual({
      granted: { tokens: 300, costUsd: null }, capped: 'the slice was capped at what remains: 500 tokens asked, 300 remain',
    });
    expect(l.grantSlice('r/b', { tokens: 100, costUsd: 1 })).toEqual({ granted: { tokens: 100, costUsd: 1 }, capped: null });
  });

  it('keeps a subtree within its slice, a grandchild within both, and stops only that subtree', () => {
    const l = new TreeLedger({ ...NONE, tokens: 10_000 }, 0);
    l.record('r', spend(700));
    expect(l.grantSlice('r/a', { tokens: 300, costUsd: null }).capped).toBeNull();
    l.record('r/a', spend(250));
    expect(l.grantSlice('r/a/x', { tokens: 200, costUsd: null }).granted).toEqual({ tokens: 50, costUsd: null });
    l.record('r/a/x', spend(50));
    expect(l.admit('r/a/x', 0)).toEqual({ ok: false, scope: 'slice', reason: 'slice of r/a: token budget spent: 300 of 300 tokens' });
    expect(l.admit('r/a', 0)).toMatchObject({ ok: false, scope: 'slice' });
    expect(l.stop).toBeNull();
    expect(l.admit('r/b', 0)).toEqual({ ok: true });
  });

  it('carries everything across continue-as-new', () => {
    const l = new TreeLedger({ ...NONE, tokens: 1000 }, 5);
    l.record('r', spend(100));
    l.grantSlice('r/a', { tokens: 50, costUsd: null });
    l.admit('r/a', 0);
    const again = new TreeLedger(l.budget, 5, JSON.parse(JSON.stringify(l.carry())));
    expect(again.carry()).toEqual(l.carry());
    expect(again.admit('r/b', 0)).toEqual({ ok: true });
  });
});
