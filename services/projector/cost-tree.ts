/*
 * What each agent of a session tree spent, folded from the tree's events alone: tokens in and
 * out, cost and time per session, and each subtree's total. Pure: no I/O, no Node modules, so
 * `recur cost`, CI summaries and the viewer read the log the same way.
 */
import type { RecurEvent, StoredEvent } from '../../schemas';

export interface Spent {
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
  /** ModelCalled events (wrap-up turns included); compactions are counted in tokens and cost, not here. */
  calls: number;
  /** Summed model-call latency. */
  modelMs: number;
  /** Calls whose tokens are an estimate: the provider reported no usage (ModelCalled.usageSource). */
  estimatedCalls: number;
}

export interface CostNode {
  sessionId: string;
  name: string;
  model: string;
  /** completed, failed (with its kind), or running while the log has no end for it. */
  status: string;
  /** This session's own spend. */
  own: Spent;
  /** Its own plus every session's below it. */
  total: Spent;
  /** From its first logged event to its end (or its last event while it runs). */
  wallMs: number;
  /** What the tree or its parent set for it (BudgetSet), when any. */
  budget: { tokens: number | null; costUsd: number | null; seconds: number | null; turns: number | null } | null;
  children: CostNode[];
}

const zero = (): Spent => ({ tokensIn: 0, tokensOut: 0, costUsd: 0, calls: 0, modelMs: 0, estimatedCalls: 0 });

export function addSpent(into: Spent, s: Spent): void {
  into.tokensIn += s.tokensIn;
  into.tokensOut += s.tokensOut;
  into.costUsd += s.costUsd;
  into.calls += s.calls;
  into.modelMs += s.modelMs;
  into.estimatedCalls += s.estimatedCalls;
}

/** What one event adds to its session's spend: a model call, or a compaction (which calls the model too); null for the rest. */
export function spentOf(ev: RecurEvent): Spent | null {
  switch (ev.type) {
    case 'ModelCalled':
      return { tokensIn: ev.tokensIn, tokensOut: ev.tokensOut, costUsd: ev.costUsd, calls: 1, modelMs: ev.latencyMs, estimatedCalls: ev.usageSource === 'estimated' ? 1 : 0 };
    case 'Compacted':
      return { tokensIn: ev.tokensIn, tokensOut: ev.tokensOut, costUsd: ev.costUsd, calls: 0, modelMs: 0, estimatedCalls: 0 };
    default:
      return null;
  }
}

/** The cost tree rooted at `rootId`, from its events in any order; a session the log never started is left out. */
export function costTree(rootId: string, events: readonly StoredEvent[]): CostNode | null {
  const nodes = new Map<string, CostNode & { first: number; last: number; parentId: string | null }>();
  const node = (e: StoredEvent) => {
    let n = nodes.get(e.sessionId);
    if (!n) {
      n = { sessionId: e.sessionId, parentId: e.parentId, name: '', model: '', status: 'running', own: zero(), total: zero(), wallMs: 0, budget: null, children: [], first: e.ts, last: e.ts };
      nodes.set(e.sessionId, n);
    }
    n.first = Math.min(n.first, e.ts);
    n.last = Math.max(n.last, e.ts);
    return n;
  };
  for (const e of events) {
    const n = node(e);
    const ev = e.event;
    const spent = spentOf(ev);
    if (spent) addSpent(n.own, spent);
    switch (ev.type) {
      case 'SessionStarted':
        Object.assign(n, { name: ev.name, model: ev.model });
        break;
      case 'BudgetSet':
        n.budget = { tokens: ev.tokens, costUsd: ev.costUsd, seconds: ev.seconds, turns: ev.turns };
        break;
      case 'SessionCompleted':
        n.status = 'completed';
        break;
      case 'SessionFailed':
        n.status = `failed (${ev.kind})`;
        break;
      // A root that stayed open after its answer, ended for good.
      case 'SessionClosed':
        n.status = 'closed';
        break;
      case 'ModelSwitched':
        n.model = ev.model;
        break;
      default:
        break;
    }
  }
  for (const n of nodes.values()) {
    n.wallMs = n.last - n.first;
    const parent = n.parentId === null ? undefined : nodes.get(n.parentId);
    if (parent) parent.children.push(n);
  }
  const root = nodes.get(rootId);
  if (!root || root.name === '') return null;
  return finish(root);
}

/** Drops the fold's bookkeeping, orders children by id and sums each subtree. */
function finish(n: CostNode & { first?: number; last?: number; parentId?: string | null }): CostNode {
  const children = n.children.filter((c) => c.name !== '').sort((a, b) => (a.sessionId < b.sessionId ? -1 : 1)).map(finish);
  const total = { ...n.own };
  for (const c of children) addSpent(total, c.total);
  return { sessionId: n.sessionId, name: n.name, model: n.model, status: n.status, own: n.own, total, wallMs: n.wallMs, budget: n.budget, children };
}
