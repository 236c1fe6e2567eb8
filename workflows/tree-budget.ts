/*
 * The tree's budget in the workflow: the root answers asks and reports from every session below
 * it (two updates per model call, so history stays O(steps)); every session asks before and
 * reports after each of its model calls. Deterministic: workflow time, conditions, one activity.
 */
import { condition, setHandler } from '@temporalio/workflow';
import type { RecurEventInput } from '../schemas/generated/events';
import { chargeTreeBudgetUpdate, type TreeBudgetReply } from './messages';
import { treeBudgetOf, type BudgetStop } from './plan-next-step';
import type { sessionActivities } from './proxies';
import type { SessionState } from './session-state';
import type { Spend, TreeLedger } from './tree-ledger';

type Acts = ReturnType<typeof sessionActivities>;

/** What this session has spent itself; `calls` counts a call made but not yet logged as a turn. */
export const spendOf = (s: SessionState, calls = 0): Spend => ({ tokens: s.tokens, costUsd: s.long.costUsd, turns: s.turn + calls });

/** The root's answer to an ask: held while calls in flight could together pass a budget. */
async function admitWhenFits(ledger: TreeLedger, sessionId: string, beforeWait?: () => Promise<void>): Promise<TreeBudgetReply> {
  for (;;) {
    const a = ledger.admit(sessionId, Date.now());
    if (!('wait' in a)) return a;
    await beforeWait?.();
    const seen = ledger.version;
    await condition(() => ledger.version !== seen);
  }
}

export function installTreeBudgetHandler(s: SessionState): void {
  const { ledger } = s;
  if (!ledger) return;
  setHandler(chargeTreeBudgetUpdate, ({ sessionId, spent, want }) => {
    ledger.record(sessionId, spent, want === 'end');
    return want === 'call' ? admitWhenFits(ledger, sessionId) : { ok: true };
  });
}

/**
 * Whether this session's calls count anywhere: a tree with no budget and no slice above the session
 * has nothing to check, so its sessions make no round trip to the root per call.
 */
function counted(s: SessionState): boolean {
  return s.ledger !== null || underBudget(s);
}

/** Whether the tree has a budget, or the session a slice of one: then each of its calls counts. */
export function underBudget(s: SessionState): boolean {
  if (s.input.inSlice) return true;
  const b = treeBudgetOf(s.input.limits);
  return b.tokens !== null || b.costUsd !== null || b.seconds !== null || b.turns !== null;
}

/** Before a model call: the tree's (and any slice's) word on it; a stop names the budget that is spent. */
export async function askTree(s: SessionState, acts: Acts): Promise<BudgetStop | null> {
  if (!counted(s)) return null;
  const spent = spendOf(s);
  let reply: TreeBudgetReply;
  if (s.ledger) {
    s.ledger.record(s.id, spent);
    reply = await admitWhenFits(s.ledger, s.id, () => s.flush());
  } else {
    // The root may hold the ask while calls elsewhere in the tree are under way: the last cell's
    // end is logged first, by the ask's activity before it asks.
    const ask = { rootId: s.input.rootId, sessionId: s.id, spent, want: 'call' as const, callIndex: s.turn };
    if (s.treeAskRides) {
      reply = await s.withRide((ride) => acts.chargeTreeBudget({ ...ask, ...ride }));
    } else {
      await s.flush();
      reply = await acts.chargeTreeBudget(ask);
    }
  }
  return reply.ok ? null : { kind: 'budget', scope: reply.scope, reason: reply.reason };
}

/**
 * After a model call (`calls` 1: made, not yet logged as a turn), or at the session's end. Below
 * the root the report after a call is not awaited: the loop goes on to its cell, and a report
 * that arrives late or is lost (the run continued as new) is made good by the next cumulative ask.
 */
export async function reportSpend(s: SessionState, acts: Acts, when: 'call' | 'end'): Promise<void> {
  if (!counted(s)) return;
  const spent = spendOf(s, when === 'call' ? 1 : 0);
  if (s.ledger) {
    s.ledger.record(s.id, spent, when === 'end');
    return;
  }
  const sent = acts.chargeTreeBudget({ rootId: s.input.rootId, sessionId: s.id, spent, want: when === 'call' ? 'report' : 'end', callIndex: s.turn });
  if (when === 'end') await sent;
  else void sent.catch(() => undefined);
}

/** The BudgetSet a session logs right after SessionStarted: the tree's budget at a root, a child's slice; none without either. */
export function budgetEvents(s: SessionState): RecurEventInput[] {
  const { slice } = s.input;
  if (slice) {
    return [{
      type: 'BudgetSet', scope: 'slice', tokens: slice.granted.tokens, costUsd: slice.granted.costUsd, seconds: null, turns: null,
      askedTokens: slice.asked.tokens, askedCostUsd: slice.asked.costUsd, note: slice.capped ?? 'as rlm() asked',
    }];
  }
  const b = s.ledger?.budget;
  if (!b || (b.tokens === null && b.costUsd === null && b.seconds === null && b.turns === null)) return [];
  return [{
    type: 'BudgetSet', scope: 'tree', tokens: b.tokens, costUsd: b.costUsd, seconds: b.seconds, turns: b.turns,
    askedTokens: null, askedCostUsd: null,
    note: s.input.autonomous ? 'the run\'s budget flags, else the autonomous defaults (RECUR_AUTONOMOUS_MAX_*)' : 'the run\'s budget flags',
  }];
}
