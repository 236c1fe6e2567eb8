import type { StoredEvent } from '../../schemas';
import { isProblemFrame, type StreamFrame } from '../daemon/api-types';
import { advanceCursor, type Cursor } from '../daemon/cursor';
import { formatEventLine, formatProblemLine } from './format-event';
import { endCode, endOfRound, type FollowEnd } from './turn-end';

export interface FollowSessionOptions {
  /** The root being followed. */
  sessionId: string;
  /** Where the follow stops (turn-end.ts): by default at the root's first end of a round or of the session. */
  ends?: FollowEnd;
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

/**
 * Prints frames until `ends` says so: one line per event (NDJSON with `json`, whose last line is
 * then the end event), problems on stderr (in the NDJSON stream with `json`).
 */
export async function followSession(o: FollowSessionOptions): Promise<FollowOutcome> {
  const ends = o.ends ?? endOfRound(o.sessionId, 0);
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
    if (ends(frame)) return { kind: 'ended', code: endCode(frame), end: frame };
  }
  return { kind: o.signal.aborted ? 'detached' : 'cut', cursor };
}
