import type { ChildInfo, ChildOutcome } from './child-types';
import type { RetainState, SessionInput, SessionResult } from './session-types';

/**
 * Whether a session whose task just ended stays addressable: a sub-agent, or a root started with
 * `retain`, that answered its first task, and from then on every later one, however it ended.
 * Other roots end; so does a session whose first task failed (its parent, or the user, saw it
 * fail). Pure.
 */
export function retainsAfter(input: Pick<SessionInput, 'parentId' | 'retain'>, r: SessionResult, retained: RetainState | null): boolean {
  return (input.parentId !== null || input.retain === true) && (retained !== null || r.status === 'completed');
}

export type IdleStep =
  /** Wait for a message this long (null: with no time limit, as there is nothing left to free). */
  | { kind: 'wait'; ms: number | null }
  /** `idleSeconds`: what SessionUnloaded logs; below the idle limit when the host asked for the kernel early. */
  | { kind: 'unload'; idleSeconds: number };

/**
 * What an idle retained session does next, given the workflow clock. Only an idle session asks:
 * one working on a task, or waiting on a child, is never unloaded (a task's end stops the children
 * still running on it). A host at its loaded-kernel cap may ask for an early unload. Pure.
 */
export function decideIdleUnload(r: RetainState, now: number, idleUnloadSeconds: number): IdleStep {
  if (r.unloadedSeq !== null) return { kind: 'wait', ms: null };
  const left = r.idleSince + idleUnloadSeconds * 1000 - now;
  if (left <= 0) return { kind: 'unload', idleSeconds: idleUnloadSeconds };
  // Whole seconds idle so far: strictly below the limit, which is how the log tells an early unload.
  if (r.unloadAsked) return { kind: 'unload', idleSeconds: Math.floor((now - r.idleSince) / 1000) };
  return { kind: 'wait', ms: left };
}

/** The inbox id of a child's outcome: one per piece of work, so a retained child's later answers are not taken for repeats. */
export function outcomeMessageId(childId: string, round: number): string {
  return round === 0 ? `${childId}#outcome` : `${childId}#outcome-${round}`;
}

/**
 * Whether a child's outcome answers what its parent is waiting for. A retained child given a
 * new task answers it with that task's message id; an outcome of other work it did meanwhile
 * (woken by a plain message) is not the new task's answer.
 */
export function answersCurrentTask(child: Pick<ChildInfo, 'status' | 'taskMessageId'>, outcome: Pick<ChildOutcome, 'taskMessageId'>): boolean {
  if (child.status !== 'running') return false;
  return !child.taskMessageId || outcome.taskMessageId === child.taskMessageId;
}
