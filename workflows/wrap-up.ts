/*
 * A long run's model turn and its end at a limit: turns, tokens, cost, time, or a goal budget end
 * it with one wrap-up turn, never silently. Deterministic: workflow time only, logged via emit.
 */
import { isCancellation } from '@temporalio/workflow';
import { goalBudgetStop, goalEvent } from './goals';
import { inject } from './keep-going';
import { checkBudget, type BudgetStop } from './plan-next-step';
import type { sessionActivities } from './proxies';
import type { SessionState } from './session-state';
import type { SessionResult } from './session-types';

type Acts = ReturnType<typeof sessionActivities>;

const wrapUpText = (why: string) => `[wrap-up] ${why}. This is your last model call: reply with a short final report (what was done, results, what remains). Do not run code.`;

/** One model call with this session's compaction settings; logs a compaction it made, counts tokens and cost. */
export async function callModelFor(s: SessionState, acts: Acts) {
  const reply = await acts.callModel({
    sessionId: s.id, agent: s.input.name, model: s.input.model, callIndex: s.turn, throughSeq: s.nextSeq - 1,
    compactAtTokens: s.input.limits.compactAtTokens ?? null, compactions: s.long.compactions,
  });
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
  return reply;
}

/** The limit that ends the session now, if any: the session's turns, tokens, cost and time, then the goal's budgets. */
export async function reachedLimit(s: SessionState): Promise<BudgetStop | null> {
  const now = Date.now();
  const stop = checkBudget({ turn: s.turn, tokens: s.tokens, elapsedMs: now - s.startedAt }, s.input.limits);
  if (stop) return stop;
  const maxCost = s.input.limits.maxCostUsd;
  if (maxCost != null && s.long.costUsd >= maxCost) {
    return { kind: 'budget', reason: `cost limit reached: $${s.long.costUsd.toFixed(4)} of $${maxCost}` };
  }
  const g = s.long.goal;
  const spent = g && s.long.goalOpen() ? goalBudgetStop(g, now) : null;
  if (!g || !spent) return null;
  await s.emit(() => [goalEvent({ ...g, status: 'budget_limited' }, 'budget_limited', now, spent)], () => (g.status = 'budget_limited'));
  return { kind: 'budget', reason: spent };
}

/**
 * Ends a long run at a limit, never silently: with a goal or in autonomous mode the agent gets one
 * more model call told to wrap up (its code is not run); the session then fails with the limit's kind.
 */
export async function wrapUp(s: SessionState, acts: Acts, stop: BudgetStop): Promise<SessionResult> {
  if (!s.input.autonomous && !s.long.goal) return { status: 'failed', ...stop };
  await inject(s, 'wrap_up', wrapUpText(stop.reason));
  try {
    const reply = await callModelFor(s, acts);
    const turn = s.turn;
    await s.emit(() => [{ type: 'ModelCalled', turn, ...reply.event }], () => s.turn++);
  } catch (e) {
    if (isCancellation(e)) throw e;
    return { status: 'failed', kind: stop.kind, reason: `${stop.reason}; the wrap-up call failed: ${(e as Error).message}` };
  }
  return { status: 'failed', kind: stop.kind, reason: `${stop.reason}; wrapped up` };
}
