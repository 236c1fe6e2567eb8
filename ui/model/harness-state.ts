import type { StoredEvent } from '../../schemas';

export interface HarnessEntry {
  readonly kind: string;
  readonly name: string;
  /** The entry's value as JSON text. */
  readonly value: string;
  /** The applied edit that set it. */
  readonly editId: string;
}

/**
 * The tree's harness as of `ts`: the fold of its applied edits stamped at or before it, in the
 * log's order (a revert's `after` is the value it went back to; null deletes). O(edits). Pure.
 */
export function harnessAt(harness: readonly StoredEvent[], ts: number): HarnessEntry[] {
  const entries = new Map<string, HarnessEntry>();
  for (const e of harness) {
    const ev = e.event;
    if (ev.type !== 'HarnessEdited' || ev.result !== 'applied' || e.ts > ts) continue;
    const key = `${ev.kind}\u0000${ev.name}`;
    if (ev.after === null) entries.delete(key);
    else entries.set(key, { kind: ev.kind, name: ev.name, value: ev.after, editId: e.eventId });
  }
  return [...entries.values()].sort((a, b) => (a.kind === b.kind ? (a.name < b.name ? -1 : 1) : a.kind < b.kind ? -1 : 1));
}
