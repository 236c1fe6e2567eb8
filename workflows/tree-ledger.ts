/*
 * The tree's spend, as its root keeps it: plain data and pure decisions, no SDK imports, so the
 * root's workflow and unit tests drive it alike. Every session reports its own cumulative spend
 * (a repeated or late report changes nothing) and asks before each model call.
 */
import { describeScope, inScope, spentReason, type Scope, type Slice, type Spend, type TreeBudget } from './check-budget';

export type { Slice, Spend, TreeBudget };

export interface LedgerCarry {
  spent: Record<string, Spend>;
  slices: Record<string, Slice>;
  /** Sessions with a model call granted and not yet reported, each with its turns when granted. */
  open: Record<string, number>;
  /** The largest single call reported so far: what a call in flight is assumed to cost. */
  largest: { tokens: number; costUsd: number } | null;
  /** Why the tree must end, once a tree budget is spent. */
  stop: string | null;
}

export type Admission =
  | { ok: true }
  | { ok: false; scope: 'tree' | 'slice'; reason: string }
  | { wait: string };

const ZERO: Spend = { tokens: 0, costUsd: 0, turns: 0 };
const usd = (n: number) => `$${n.toFixed(4)}`;

export class TreeLedger {
  private readonly spent: Map<string, Spend>;
  private readonly slices: Map<string, Slice>;
  private readonly open: Map<string, number>;
  private largest: LedgerCarry['largest'];
  stop: string | null;
  /** Bumped by every change, so a waiting ask can notice one (not carried). */
  version = 0;

  constructor(readonly budget: TreeBudget, readonly startedAt: number, c?: LedgerCarry) {
    this.spent = new Map(Object.entries(c?.spent ?? {}));
    this.slices = new Map(Object.entries(c?.slices ?? {}));
    this.open = new Map(Object.entries(c?.open ?? {}));
    this.largest = c?.largest ?? null;
    this.stop = c?.stop ?? null;
  }

  /**
   * Takes a session's cumulative spend. Its granted call counts as reported once the spend has a
   * turn more than when it was granted (a late report of an earlier call leaves it open), or at
   * the session's `end`.
   */
  record(sessionId: string, spend: Spend, end = false): void {
    const was = this.spent.get(sessionId) ?? ZERO;
    const now = { tokens: Math.max(was.tokens, spend.tokens), costUsd: Math.max(was.costUsd, spend.costUsd), turns: Math.max(was.turns, spend.turns) };
    const call = { tokens: now.tokens - was.tokens, costUsd: now.costUsd - was.costUsd };
    if (call.tokens > 0 || call.costUsd > 0) {
      this.largest = { tokens: Math.max(call.tokens, this.largest?.tokens ?? 0), costUsd: Math.max(call.costUsd, this.largest?.costUsd ?? 0) };
    }
    this.spent.set(sessionId, now);
    const granted = this.open.get(sessionId);
    if (end || (granted !== undefined && now.turns > granted)) this.open.delete(sessionId);
    this.version++;
  }

  /** The sum over `holder` and every session below it ('' sums the tree). */
  total(holder = ''): Spend {
    const sum = { ...ZERO };
    for (const [id, s] of this.spent) {
      if (holder !== '' && id !== holder && !id.startsWith(`${holder}/`)) continue;
      sum.tokens += s.tokens;
      sum.costUsd += s.costUsd;
      sum.turns += s.turns;
    }
    return sum;
  }

  /**
   * Whether `sessionId` may make a model call now. Refused once a budget it falls under is spent
   * (a tree budget also sets `stop`); told to wait while calls in flight could together pass one.
   */
  admit(sessionId: string, now: number): Admission {
    if (this.stop) return { ok: false, scope: 'tree', reason: this.stop };
    for (const scope of this.scopes(sessionId)) {
      const spent = spentReason(scope, this.total(scope.holder), now - this.startedAt);
      if (!spent) continue;
      if (scope.holder !== '') return { ok: false, scope: 'slice', reason: spent };
      this.stop = spent;
      this.version++;
      return { ok: false, scope: 'tree', reason: spent };
    }
    for (const scope of this.scopes(sessionId)) {
      const inFlight = [...this.open.keys()].filter((id) => id !== sessionId && inScope(scope.holder, id)).length;
      if (inFlight > 0 && !this.fits(scope, inFlight + 1)) return { wait: `${inFlight} model call(s) in flight could pass ${describeScope(scope)}` };
    }
    this.open.set(sessionId, this.spent.get(sessionId)?.turns ?? 0);
    this.version++;
    return { ok: true };
  }

  /**
   * The slice a child gets: what it asked for, capped at what remains of every budget above it
   * (the spawner's own slices and the tree's). Capping, not refusing: what remains moves while
   * siblings run, so an agent cannot know the exact figure to ask for.
   */
  grantSlice(childId: string, asked: Slice): { granted: Slice; capped: string | null } {
    const parent = childId.slice(0, childId.lastIndexOf('/'));
    const room = { tokens: Infinity, costUsd: Infinity };
    for (const scope of this.scopes(parent)) {
      const spent = this.total(scope.holder);
      if (scope.limit.tokens !== null) room.tokens = Math.min(room.tokens, Math.max(scope.limit.tokens - spent.tokens, 0));
      if (scope.limit.costUsd !== null) room.costUsd = Math.min(room.costUsd, Math.max(scope.limit.costUsd - spent.costUsd, 0));
    }
    // A measure not asked for stays null: the budgets above still bound it.
    const pick = (a: number | null, r: number) => (a === null ? null : Math.min(a, r));
    const granted = { tokens: pick(asked.tokens, room.tokens), costUsd: pick(asked.costUsd, room.costUsd) };
    const cut: string[] = [];
    if (asked.tokens !== null && granted.tokens! < asked.tokens) cut.push(`${asked.tokens} tokens asked, ${granted.tokens} remain`);
    if (asked.costUsd !== null && granted.costUsd! < asked.costUsd) cut.push(`${usd(asked.costUsd)} asked, ${usd(granted.costUsd!)} remains`);
    this.slices.set(childId, granted);
    this.version++;
    return { granted, capped: cut.length ? `the slice was capped at what remains: ${cut.join('; ')}` : null };
  }

  carry(): LedgerCarry {
    return {
      spent: Object.fromEntries(this.spent), slices: Object.fromEntries(this.slices), open: Object.fromEntries(this.open), largest: this.largest, stop: this.stop,
    };
  }

  /** The tree's budget, then each slice held by `sessionId` or an ancestor. */
  private scopes(sessionId: string): Scope[] {
    const out: Scope[] = [{ holder: '', limit: this.budget }];
    for (const [holder, slice] of this.slices) {
      if (inScope(holder, sessionId)) out.push({ holder, limit: { ...slice, seconds: null, turns: null } });
    }
    return out;
  }

  /** Whether `calls` more calls, each as large as the largest so far, stay within the scope's budget. */
  private fits(scope: Scope, calls: number): boolean {
    const spent = this.total(scope.holder);
    const { limit } = scope;
    if (limit.turns !== null && spent.turns + calls > limit.turns) return false;
    if (limit.tokens === null && limit.costUsd === null) return true;
    // Before any call is reported nothing says what one costs: calls go one at a time.
    if (this.largest === null) return false;
    if (limit.tokens !== null && spent.tokens + calls * this.largest.tokens > limit.tokens) return false;
    return limit.costUsd === null || spent.costUsd + calls * this.largest.costUsd <= limit.costUsd;
  }
}
