/**
 * A stream cursor: for each session of a tree, the last seq its reader has seen. A session's
 * events arrive in seq order, so "seen" is everything at or below that seq. Pure.
 */
export type Cursor = Readonly<Record<string, number>>;

export type CursorParse = { ok: true; cursor: Cursor } | { ok: false; reason: string };

/** Reads the `after` query parameter (already URL-decoded): a JSON object sessionId → seq. */
export function parseCursor(text: string | null): CursorParse {
  if (text === null || text === '') return { ok: true, cursor: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'after must be a JSON object mapping session id to last seen seq' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: 'after must be a JSON object mapping session id to last seen seq' };
  }
  const cursor: Record<string, number> = {};
  for (const [sessionId, seq] of Object.entries(value)) {
    if (!Number.isSafeInteger(seq) || (seq as number) < -1) {
      return { ok: false, reason: `after["${sessionId}"] must be an integer seq ≥ -1, got ${JSON.stringify(seq)}` };
    }
    cursor[sessionId] = seq as number;
  }
  return { ok: true, cursor };
}

/** True when the reader has not seen this event yet. */
export function isPastCursor(cursor: Cursor, sessionId: string, seq: number): boolean {
  const last = Object.hasOwn(cursor, sessionId) ? cursor[sessionId] : undefined;
  return last === undefined || seq > last;
}

/** The cursor after reading one more event (never moves back). */
export function advanceCursor(cursor: Cursor, sessionId: string, seq: number): Cursor {
  return isPastCursor(cursor, sessionId, seq) ? { ...cursor, [sessionId]: seq } : cursor;
}
