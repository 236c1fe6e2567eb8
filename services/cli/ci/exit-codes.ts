import { inspect } from 'node:util';
import { ExitError, RecurError } from '../../../errors';
import type { FailureKind, StoredEvent } from '../../../schemas';

/** The exit codes of `recur run --ci` and `recur attach --ci` (docs/ci.md). */
export const CI_EXIT = {
  /** The root completed and the last round of every gate passed. */
  passed: 0,
  /** The root failed, was cancelled, or completed with a gate that failed last. */
  failed: 1,
  /** A budget or limit ended the tree. */
  limit: 2,
  /** Recur could not run the tree or could not see it to its end. */
  infrastructure: 3,
} as const;

export type CiExitCode = (typeof CI_EXIT)[keyof typeof CI_EXIT];

/**
 * Every failure kind has a code, so a kind added to SessionFailed.avsc does not compile until it
 * is placed. A provider or kernel failing for good is the infrastructure's doing, not the
 * agent's work; a script running out is a failed run (the script is the test's model).
 */
export const FAILURE_EXIT: Readonly<Record<FailureKind, CiExitCode>> = {
  budget: CI_EXIT.limit,
  max_turns: CI_EXIT.limit,
  max_depth: CI_EXIT.limit,
  timeout: CI_EXIT.limit,
  approval_refused: CI_EXIT.limit,
  script_exhausted: CI_EXIT.failed,
  cancelled: CI_EXIT.failed,
  model_error: CI_EXIT.infrastructure,
  kernel_error: CI_EXIT.infrastructure,
  internal: CI_EXIT.infrastructure,
};

/** The gate runs of one session's last round, each gate's last run: what "every gate passed" is judged on. */
export function lastGateRound(events: readonly StoredEvent[], sessionId: string): Array<Extract<StoredEvent['event'], { type: 'GateChecked' }>> {
  const gates = events.flatMap((e) => (e.sessionId === sessionId && e.event.type === 'GateChecked' ? [e.event] : []));
  const round = Math.max(0, ...gates.map((g) => g.attempt));
  return gates.filter((g) => g.attempt === round);
}

export interface CiVerdict {
  code: CiExitCode;
  /** One line saying why, for the log and the summary. */
  reason: string;
}

/** The code for a tree whose root logged `end`; `events` are the tree's (for the gates). */
export function ciVerdict(end: StoredEvent, events: readonly StoredEvent[]): CiVerdict {
  const e = end.event;
  if (e.type === 'SessionFailed') return { code: FAILURE_EXIT[e.kind], reason: `${end.sessionId} failed (${e.kind}): ${e.reason}` };
  // A root that stayed open (a run without CI mode, attached with --ci): a round that did not answer, or its close, fails.
  if (e.type === 'SessionClosed') return { code: CI_EXIT.failed, reason: `${end.sessionId} was closed: ${e.reason}` };
  if (e.type === 'TaskEnded' && e.status !== 'completed') return { code: CI_EXIT.failed, reason: `${end.sessionId} round ${e.round} ${e.status}: ${e.reason ?? ''}` };
  const failed = lastGateRound(events, end.sessionId).filter((g) => !g.passed);
  if (failed.length > 0) return { code: CI_EXIT.failed, reason: `${end.sessionId} completed, but gate ${JSON.stringify(failed[0].command)} failed its last run` };
  return { code: CI_EXIT.passed, reason: `${end.sessionId} completed` };
}

/**
 * What a CI run throws instead of `e`: anything that stopped Recur running or watching the tree
 * (daemon unreachable, a refused request, a stream cut, an end never logged, a bad flag, a bug)
 * is exit 3, with the message main.ts would have printed.
 */
export function asInfrastructureExit(e: unknown): ExitError {
  if (e instanceof ExitError && e.code === CI_EXIT.infrastructure) return e;
  if (e instanceof RecurError) return new ExitError(CI_EXIT.infrastructure, `${e.message}${e.hint ? `\n  → ${e.hint}` : ''}`);
  return new ExitError(CI_EXIT.infrastructure, `internal error — this is a bug, please report it with the output below.\n${inspect(e)}`);
}
