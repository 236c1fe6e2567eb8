/*
 * A throttled model call, waited out durably: the model activity (or the worker's steps) ends
 * with the provider's reset time instead of sleeping through it; the session logs ModelThrottled
 * and waits on a workflow timer, so a worker lost meanwhile resumes the same wait on replay, and
 * the call is then made again with the same index (the same idempotency key). A backup model, if
 * the run named one, takes over once the primary has been throttled long enough. Deterministic:
 * workflow time and timers only. No patch guards it: only a failure of type ThrottledError, which
 * no earlier worker raised, reaches this code, so no recorded history takes a new path.
 */
import { ActivityFailure, ApplicationFailure, sleep, upsertMemo } from '@temporalio/workflow';
import type { ThrottleInfo } from '../errors';
import type { SessionState } from './session-state';

/** The throttle an activity failure reports (activities/activity-errors.ts), or null for any other failure. */
export function throttleOf(e: unknown): ThrottleInfo | null {
  if (!(e instanceof ActivityFailure) || !(e.cause instanceof ApplicationFailure) || e.cause.type !== 'ThrottledError') return null;
  return (e.cause.details?.[0] as ThrottleInfo | undefined) ?? null;
}

/** When the tree's time budget runs out (epoch ms); null where this session does not hold it or it has none. */
function timeBudgetEnd(s: SessionState): number | null {
  const seconds = s.ledger?.budget.seconds ?? null;
  return seconds === null ? null : s.ledger!.startedAt + seconds * 1000;
}

/**
 * Logs the throttle and waits until its reset, or the time budget's end if sooner (the caller's
 * next ask of the budget then ends the session as at any turn). A backup model due by then is
 * switched to, logged, before the session calls again.
 */
export async function waitOutThrottle(s: SessionState, t: ThrottleInfo): Promise<void> {
  const now = Date.now();
  const budgetEnd = timeBudgetEnd(s);
  const until = budgetEnd === null ? t.resetAtMs : Math.min(t.resetAtMs, Math.max(now, budgetEnd));
  const waitMs = Math.max(0, until - now);
  const attempt = s.throttlesOfCall(s.turn);
  await s.emit(() => [{
    type: 'ModelThrottled', provider: t.provider, model: t.model ?? s.ops.model, status: t.status, reason: t.reason,
    resetAt: t.resetAtMs, waitMs, attempt, idempotencyKey: t.idempotencyKey ?? '',
  }], () => (s.ops.throttledMs += waitMs));
  // A listing (`recur ls`) reads the memo, not each session: it shows the wait and its end.
  upsertMemo({ phase: 'throttled', throttledUntil: until });
  s.phase = 'throttled';
  try {
    await sleep(waitMs);
  } finally {
    upsertMemo({ phase: undefined, throttledUntil: undefined });
    s.phase = 'model';
  }
  await switchToBackup(s);
}

/** The backup takes over, logged, once the model in use has been throttled for the run's limit. */
async function switchToBackup(s: SessionState): Promise<void> {
  const backup = s.input.backup;
  const throttledMs = s.ops.throttledMs;
  if (!backup || s.ops.model === backup.model || throttledMs < backup.afterMinutes * 60_000) return;
  const previous = s.ops.model;
  await s.emit(() => [{ type: 'ModelSwitched', model: backup.model, previous, reason: 'backup', throttledMs }], () => {
    s.ops.model = backup.model;
    s.ops.throttledMs = 0;
  });
}
