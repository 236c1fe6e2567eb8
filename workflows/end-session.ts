/*
 * How a session's work ends, whatever ended it: the end is logged (falling back to a minimal
 * SessionFailed when the full event cannot be appended), the parent is told what was logged, every
 * child is told to end and the kernel is freed. Deterministic workflow code: activities and signals only.
 */
import { ActivityFailure, getExternalWorkflowHandle } from '@temporalio/workflow';
import type { RecurEventInput } from '../schemas/generated/events';
import { FIELD_LIMITS, previewNamingBlob } from '../schemas/field-limits';
import { treeSpend } from './approvals/tree-spend';
import { childFinishedSignal } from './messages';
import type { sessionActivities } from './proxies';
import type { SessionState } from './session-state';
import type { RetainState, SessionResult } from './session-types';
import { reportSpend } from './tree-budget';
import { logWorkspace } from './workspace-log';
import { endJobs } from './jobs/end-jobs';

/** Longest reason the fallback SessionFailed carries: small enough that it always encodes. */
export const FALLBACK_REASON_CHARS = 2000;

/** The fault's reason, in words: which activity gave up and why, or the bug's name and message. */
export function describeFault(e: unknown): string {
  if (e instanceof ActivityFailure) return `${e.activityType ?? 'an activity'} failed for good: ${e.cause?.message ?? e.message}`;
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return `a non-error was thrown: ${String(e)}`;
}

/**
 * Logs the end of the session's current piece of work and tells the parent how it ended; returns
 * the result that was logged (a failure when the answer could not be), or null when nothing could be.
 */
export async function endTask(s: SessionState, r: SessionResult, last = false): Promise<SessionResult | null> {
  const round = s.retained?.round ?? 0;
  const taskMessageId = s.retained?.taskMessageId ?? null;
  const logged = await logEnd(s, round, r, last);
  if (!s.input.parentId) return logged;
  const told = logged ?? { status: 'failed', kind: 'internal', reason: 'the session ended but its end could not be logged' };
  const spent = treeSpend(s);
  await getExternalWorkflowHandle(s.input.parentId).signal(childFinishedSignal, told.status === 'completed'
    ? { name: s.input.name, status: 'completed', answer: told.answer, answerBlob: told.answerBlob ?? null, error: null, round, taskMessageId, spent }
    : { name: s.input.name, status: told.kind === 'cancelled' ? 'cancelled' : 'failed', answer: null, error: told.reason, round, taskMessageId, spent, ...(told.kind === 'approval_refused' && { endsRun: true }) },
  ).catch(() => undefined);
  return logged;
}

/** `last`: nothing is logged after this end (the session is finishing), whatever handler runs later. */
async function logEnd(s: SessionState, round: number, r: SessionResult, last: boolean): Promise<SessionResult | null> {
  const close = () => {
    if (last) s.closed = true;
  };
  try {
    await s.emit(() => [endEvent(round, r)], close);
    return r;
  } catch (e) {
    const why = r.status === 'completed' ? 'the answer could not be logged' : r.reason;
    const fallback: SessionResult = {
      status: 'failed', kind: r.status === 'failed' ? r.kind : 'internal',
      reason: clip(`${why}; logging the end failed: ${describeFault(e)}`),
    };
    try {
      await s.emit(() => [endEvent(round, fallback)], close);
      return fallback;
    } catch {
      close();
      return null;
    }
  }
}

const clip = (text: string, max = FALLBACK_REASON_CHARS): string => (text.length <= max ? text : `${text.slice(0, max - 15)}… [clipped]`);

function endEvent(round: number, r: SessionResult): RecurEventInput {
  if (round > 0) {
    return r.status === 'completed'
      // TaskEnded has no BlobRef field: a long answer's preview names its blob.
      ? { type: 'TaskEnded', round, status: 'completed', answer: previewNamingBlob(r.answer, r.answerBlob ?? null, FIELD_LIMITS.TaskEnded.answer) }
      : { type: 'TaskEnded', round, status: r.kind === 'cancelled' ? 'cancelled' : 'failed', reason: r.reason };
  }
  return r.status === 'completed'
    ? { type: 'SessionCompleted', answer: r.answer, answerBlob: r.answerBlob ?? null }
    : { type: 'SessionFailed', kind: r.kind, reason: r.reason };
}

async function logClosed(s: SessionState, r: SessionResult, retained: RetainState): Promise<void> {
  const reason = clip(r.status === 'failed' ? r.reason : 'the session ended', FIELD_LIMITS.SessionClosed.reason);
  await s.emit(() => [{ type: 'SessionClosed', reason, round: retained.round, idle: retained.idle }], () => (s.closed = true));
}

/**
 * Ends the session: logs the end (unless it idled, retained, with nothing under way, or the caller
 * logged it already), stops every
 * child (running or retained) and frees the kernel. Returns what was logged (null: nothing could be).
 */
export async function finish(
  s: SessionState, r: SessionResult, acts: ReturnType<typeof sessionActivities>, alreadyLogged?: SessionResult | null,
): Promise<SessionResult | null> {
  const { retained } = s;
  s.phase = 'done';
  const ending = alreadyLogged === undefined && !retained?.idle;
  // A retained root's rounds each end with TaskEnded (or its SessionCompleted): its own end for good needs an event of its own.
  const closing = retained !== null && s.input.parentId === null;
  // A batch still riding goes to the log before anything of the end, or is found never loggable.
  await s.settleRide();
  // Jobs end with the session, logged before its end; a failed append still lets the end be logged.
  await endJobs(s).catch(() => undefined);
  // The end scan comes before the terminal event; a scan or its append failing never keeps the end from the log.
  if (ending) await logWorkspace(s, acts, 'end').catch(() => undefined);
  const logged = ending ? await endTask(s, r, !closing) : alreadyLogged !== undefined ? alreadyLogged : r;
  if (closing) await logClosed(s, r, retained).catch(() => undefined);
  s.closed = true;
  // A call granted but never reported (it failed, or the session was cancelled in it) stops holding the tree's room.
  if (s.input.parentId !== null) await reportSpend(s, acts, 'end').catch(() => undefined);
  // Whatever the parent last saw, a child may still run or be retained: every one is told to end.
  for (const child of s.children.values()) await getExternalWorkflowHandle(child.id).cancel().catch(() => undefined);
  if (!retained || retained.unloadedSeq === null) await acts.shutdownKernel({ sessionId: s.id }).catch(() => undefined);
  return logged;
}
