import type { LogReply, TreeLog } from './api-types';
import { isPastCursor, type Cursor } from './cursor';

/** Events per `GET /log` page when the client names no limit, and the most it may ask for. */
export const DEFAULT_LOG_PAGE = 1000;
export const MAX_LOG_PAGE = 5000;

/**
 * One page of a tree's log: the first `limit` events the reader has not seen, in the log read's
 * order (session by session, each by seq), and the cursor that continues after them. The cursor
 * keeps a seq per session, so events a session logs after the reader paged past it still come
 * on a later page. Pure.
 */
export function pageLog(log: TreeLog, after: Cursor, limit: number): LogReply {
  const unseen = log.events.filter((e) => isPastCursor(after, e.sessionId, e.seq));
  const events = unseen.slice(0, limit);
  const next: Record<string, number> = { ...after };
  for (const e of events) next[e.sessionId] = e.seq;
  return { events, problems: log.problems, nextCursor: next, more: unseen.length > events.length };
}
