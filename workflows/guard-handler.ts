import { ApplicationFailure, isCancellation } from '@temporalio/workflow';
import { describeFault } from './end-session';
import type { SessionState } from './session-state';

/*
 * A handler that throws (its append failed, or a bug) would fail the workflow task, and Temporal
 * retries that forever: the session would hang with no end in its log. Guarded, the fault ends the
 * session through its loop (SessionFailed logged); an update's caller gets the reason as its error.
 */

/** For update handlers: the fault ends the session and fails this update with the reason. */
export function guardUpdate<A extends unknown[], R>(s: SessionState, fn: (...args: A) => Promise<R> | R): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      // Only with steps in flight: a handler of a run without them keeps its recorded timing.
      if (s.stepsInFlight) await s.settleSteps();
      return await fn(...args);
    } catch (e) {
      if (isCancellation(e)) throw e;
      s.fail(describeFault(e));
      throw ApplicationFailure.create({ type: 'SessionFailing', message: `the session is ending: ${s.fault}`, nonRetryable: true });
    }
  };
}

/** For signal handlers: the fault ends the session; the sender already moved on. */
export function guardSignal<A extends unknown[]>(s: SessionState, fn: (...args: A) => Promise<void> | void): (...args: A) => Promise<void> {
  return async (...args) => {
    try {
      if (s.stepsInFlight) await s.settleSteps();
      await fn(...args);
    } catch (e) {
      if (!isCancellation(e)) s.fail(describeFault(e));
    }
  };
}
