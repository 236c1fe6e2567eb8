import type { StoredEvent } from '../../schemas';
import { isProblemFrame, type StreamFrame } from '../daemon/api-types';
import { advanceCursor, type Cursor } from '../daemon/cursor';
import { formatEventLine, formatProblemLine } from './format-event';

export interface FollowSessionOptions {
  /** The session whose SessionCompleted or SessionFailed ends the stream. */
  sessionId: string;
  /** Frames past this cursor are expected from `frames`. */
  cursor: Cursor;
  frames: AsyncIterable<StreamFrame>;
  /** Ctrl-C: stop reading at once, without ending the session. */
  signal: AbortSignal;
  json: boolean;
  out: (line: string) => void;
  err: (line: string) => void;
}

export type FollowOutcome =
  | { kind: 'ended'; code: 0 | 1; end: StoredEvent }
  /** Stopped by `signal`; `cursor` covers every event printed. */
  | { kind: 'detached'; cursor: Cursor }
  /** The frames ran out before the end event. */
  | { kind: 'cut'; cursor: Cursor };

const isEnd = (e: StoredEvent, sessionId: string): boolean =>
  e.sessionId === sessionId && (e.type === 'SessionCompleted' || e.type === 'SessionFailed');

/**
 * Prints frames until `sessionId` ends: one line per event (NDJSON with `json`, whose last line
 * is then the end event), problems on stderr (in the NDJSON stream with `json`).
 */
export async function followSession(o: FollowSessionOptions): Promise<FollowOutcome> {
  let cursor = o.cursor;
  for await (const frame of o.frames) {
    if (o.signal.aborted) break;
    if (isProblemFrame(frame)) {
      if (o.json) o.out(JSON.stringify(frame));
      else o.err(formatProblemLine(frame));
      continue;
    }
    cursor = advanceCursor(cursor, frame.sessionId, frame.seq);
    o.out(o.json ? JSON.stringify(frame) : formatEventLine(frame));
    if (isEnd(frame, o.sessionId)) return { kind: 'ended', code: frame.type === 'SessionCompleted' ? 0 : 1, end: frame };
  }
  return { kind: o.signal.aborted ? 'detached' : 'cut', cursor };
}
