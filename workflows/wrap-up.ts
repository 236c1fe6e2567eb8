/*
 * A long run's model turn and its end at a limit: turns, tokens, cost, time, or a goal budget end
 * it with one wrap-up turn, never silently. Deterministic: workflow time only, logged via emit.
 */
import { isCancellation } from '@temporalio/workflow';
import type { CallModelResult } from '../activities/call-model';
import { goalBudgetStop, goalEvent } from './goals';
import { inject } from './keep-going';
import { checkTurns, type BudgetStop } from './plan-next-step';
import type { sessionActivities } from './proxies';
import type { SessionState } from './session-state';
import type { SessionResult } from './session-types';
import { modelCalled } from './step-events';
import { askTree, reportSpend } from './tree-budget';

type Acts = ReturnType<typeof sessionActivities>;

const wrapUpText = (why: string) => `[wrap-up] ${why}. This is your last model call: reply with a short final report (what was done, results, what remains). Do not run code.`;

/**
 * One model call with this session's compaction settings; logs a compaction it made, counts tokens
 * and cost, and tells the tree. `given`: a reply the worker's steps got and left unlogged
 * (worker-steps.ts), counted here as the call it is.
 */
export async function callModelFor(s: SessionState, acts: Acts, given?: CallModelResult) {
  const manual = !given && s.ops.compactAsked;
  // The prompt is built from the log once the activity has written the batch that rides it (SessionLog.ride).
  const reply = given ?? await s.withRide((ride) => acts.callModel({
    sessionId: s.id, agent: s.input.name, model: s.ops.model, callIndex: s.turn, throughSeq: s.nextSeq - 1,
    compactAtTokens: s.input.limits.compactAtTokens ?? null, compactions: s.long.compactions, ...(manual && { compactNow: true }), ...ride,
  }));
  // Asked once: with too little to summarise the ask is spent all the same.
  if (manual) s.ops.compactAsked = false;
  if (reply.compacted) {
    const c = reply.compacted;
    await s.emit(() => [{ type: 'Compacted', ...c }], () => {
      s.long.compactions++;
      s.tokens += c.tokensIn + c.tokensOut;
      s.long.recordCall(c.tokensIn + c.tokensOut, c.costUsd);
    });
  }
  s.tokens += reply.event.tokensIn + reply.event.tokensOut;
  s.long.recordCall(reply.event.tokensIn + reply.event.tokensOut, reply.event.costUsd);
  await reportSpend(s, acts, 'call');
  return reply;
}

/** The limit that ends the session now, if any: its own turns, the tree's (or a slice's) budgets, then the goal's budgets. */
export async function reachedLimit(s: SessionState, acts: Acts): Promise<BudgetStop | null> {
  const stop = checkTurns(s.turn, s.input.limits.maxTurns) ?? await askTree(s, acts);
  if (stop) return stop;
  const now = Date.now();
  const g = s.long.goal;
  const spent = g && s.long.goalOpen() ? goalBudgetStop(g, now) : null;
  if (!g || !spent) return null;
  await s.emit(() => [goalEvent({ ...g, status: 'budget_limited' }, 'budget_limited', now, spent)], () => (g.status = 'budget_limited'));
  return { kind: 'budget', scope: 'session', reason: spent };
}

/** Whether a stop gets a wrap-up call: the root at a tree budget, or a long run (goal, autonomous) at its own limit. */
function wrapsUp(s: SessionState, stop: BudgetStop): boolean {
  if (stop.scope === 'tree') return s.ledger !== null;
  return stop.scope === 'session' && (!!s.input.autonomous || !!s.long.goal);
}

/**
 * Ends a run at a limit, never silently: the agent may get one more model call told to wrap up
 * (its code is not run; see wrapsUp); the session then fails with the limit's kind. A session
 * below the root stopped by the tree's budget ends at once: the one wrap-up is the root's.
 */
export async function wrapUp(s: SessionState, acts: Acts, stop: BudgetStop): Promise<SessionResult> {
  // From here the kernel may still call the host (a thread of its own), but it starts no more work.
  s.wrappingUp = true;
  if (!wrapsUp(s, stop)) return { status: 'failed', kind: stop.kind, reason: stop.reason };
  await inject(s, 'wrap_up', wrapUpText(stop.reason));
  try {
    const reply = await callModelFor(s, acts);
    const turn = s.turn;
    await s.emit(() => [modelCalled(turn, reply)], () => s.turn++);
  } catch (e) {
    if (isCancellation(e)) throw e;
    return { status: 'failed', kind: stop.kind, reason: `${stop.reason}; the wrap-up call failed: ${(e as Error).message}` };
  }
  return { status: 'failed', kind: stop.kind, reason: `${stop.reason}; wrapped up` };
}
