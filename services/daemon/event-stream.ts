import type { WebSocket } from 'ws';
import type { FollowItem } from '../projector';
import type { DeltaFrame, ProblemFrame, StreamFrame } from './api-types';
import type { DeltaHub } from './delta-hub';
import { isPastCursor, type Cursor } from './cursor';
import { conflictFrame, undecodableFrame } from './problem-frames';

/** A source of a session tree's log items, history then live, ending when `signal` aborts. */
export type FollowLog = (sessionId: string, signal: AbortSignal) => AsyncIterable<FollowItem>;

/**
 * Resolves when the session's workflow has closed (however it ended); never, while it runs or when
 * it is unknown. A session that closed without an end event in its log would otherwise be followed forever.
 */
export type SessionClosed = (sessionId: string, signal: AbortSignal) => Promise<void>;

/** The close reason the stream ends with once the session's workflow closed; the client then reads what remains from the log. */
export const SESSION_CLOSED = 'session closed';

/** The frame for one followed item, or null when the reader has already seen it. */
export function toFrame(item: FollowItem, cursor: Cursor): StreamFrame | null {
  switch (item.kind) {
    case 'event':
      return isPastCursor(cursor, item.event.sessionId, item.event.seq) ? item.event : null;
    case 'undecodable':
      return undecodableFrame(item.record);
    case 'conflict':
      return conflictFrame(item.conflict);
  }
}

/** Past this many unsent bytes a slow client's deltas are dropped: the log frames still come, and hold the record. */
const DELTA_BACKLOG_BYTES = 1024 * 1024;

function sendDelta(ws: WebSocket, delta: DeltaFrame): void {
  if (ws.readyState === ws.OPEN && ws.bufferedAmount < DELTA_BACKLOG_BYTES) ws.send(JSON.stringify(delta), () => undefined);
}

function send(ws: WebSocket, frame: StreamFrame): Promise<void> {
  // Waiting for each write keeps a slow client from piling the whole log up in the daemon's memory.
  return new Promise((resolve, reject) => ws.send(JSON.stringify(frame), (err) => (err ? reject(err) : resolve())));
}

/**
 * Streams the tree under `sessionId` to `ws`, one JSON text frame per event past `cursor`, until
 * the client goes away or the session's workflow closes (then 1000 SESSION_CLOSED). A failing log
 * read is reported as a problem frame and closes with 1011. With `deltas`, the tree's model text
 * deltas are sent between them as they arrive.
 */
export async function streamSessionEvents(
  ws: WebSocket, follow: FollowLog, sessionId: string, cursor: Cursor, closed?: SessionClosed, deltas?: DeltaHub,
): Promise<void> {
  const stop = new AbortController();
  const unsubscribe = deltas?.subscribe(sessionId, (delta) => sendDelta(ws, delta));
  const abort = (): void => stop.abort();
  let sessionClosed = false;
  ws.once('close', abort);
  ws.once('error', abort);
  closed?.(sessionId, stop.signal).then(() => {
    sessionClosed = true;
    stop.abort();
  }, () => undefined);
  try {
    for await (const item of follow(sessionId, stop.signal)) {
      const frame = toFrame(item, cursor);
      if (frame) await send(ws, frame);
    }
    if (sessionClosed) ws.close(1000, SESSION_CLOSED);
  } catch (err) {
    if (sessionClosed) ws.close(1000, SESSION_CLOSED);
    if (stop.signal.aborted) return;
    const problem: ProblemFrame = { kind: 'problem', problem: 'error', reason: `reading the event log failed: ${(err as Error).message}` };
    await send(ws, problem).catch(() => undefined);
    ws.close(1011, 'event log unavailable');
  } finally {
    unsubscribe?.();
    stop.abort();
    ws.off('close', abort);
    ws.off('error', abort);
  }
}
