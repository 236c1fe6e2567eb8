import type { StoredEvent } from '../../schemas';

/*
 * Where following a root stops. A root started by the daemon stays open after its answer
 * (docs/conversations.md): its rounds end with SessionCompleted (round 0) or TaskEnded (round N),
 * and it ends for good with SessionClosed, or with SessionFailed when its first round failed. Pure.
 */

/** Decides, event by event, whether a follow has reached its end; may keep state (a message seen). */
export type FollowEnd = (e: StoredEvent) => boolean;

/** The root's end of a round, or of the session: the events a follower of `sessionId` may stop at. */
export function isRootEnd(e: StoredEvent, sessionId: string): boolean {
  return e.sessionId === sessionId
    && (e.type === 'SessionCompleted' || e.type === 'SessionFailed' || e.type === 'TaskEnded' || e.type === 'SessionClosed');
}

/** The round a root end closes: Infinity for the session's own end, which closes every round. */
function roundOf(e: StoredEvent): number {
  if (e.event.type === 'SessionCompleted') return 0;
  if (e.event.type === 'TaskEnded') return e.event.round;
  return Infinity;
}

/** Stops at the end of round `round` of the root or a later one, or at the session's end. */
export const endOfRound = (sessionId: string, round: number): FollowEnd => (e) => isRootEnd(e, sessionId) && roundOf(e) >= round;

/** Stops at one event: the last root end of a closed session's log (its SessionClosed, or its SessionCompleted or SessionFailed). */
export function lastEndOf(events: readonly StoredEvent[], sessionId: string): FollowEnd {
  const last = events.filter((e) => isRootEnd(e, sessionId)).at(-1);
  return (e) => e.eventId === last?.eventId;
}

/**
 * Stops at the end of the round that answers message `messageId`: the first root end after the
 * root took it (MessageDelivered, into its prompt or its kernel), or the session's end.
 */
export function answerTo(sessionId: string, messageId: string): FollowEnd {
  let taken = false;
  return (e) => {
    if (e.sessionId === sessionId && e.event.type === 'MessageDelivered' && e.event.messageId === messageId) taken = true;
    return isRootEnd(e, sessionId) && (taken || roundOf(e) === Infinity);
  };
}

/** 0 when the end is an answer, 1 otherwise (a failed or cancelled round, the session's failure or close). */
export function endCode(e: StoredEvent): 0 | 1 {
  return e.event.type === 'SessionCompleted' || (e.event.type === 'TaskEnded' && e.event.status === 'completed') ? 0 : 1;
}
