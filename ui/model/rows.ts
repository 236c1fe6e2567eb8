/*
 * The timeline's rows: the tree's events (already in causal order) with the harness log's edits
 * merged in at their time, for the whole tree or one session. Built once per tree version in
 * O(events + edits); a row's text is formatted only when it is on screen.
 */
import type { StoredEvent } from '../../schemas';
import type { TreeVerdict } from '../../log/verify-tree';

export type Scope = 'session' | 'tree';

export interface Row {
  readonly event: StoredEvent;
  /** Levels below the tree's root; a harness edit sits at its requesting session's depth. */
  readonly depth: number;
}

/** Slashes counted in place: this runs once per event of a 100,000-event tree. */
function depthOf(sessionId: string): number {
  let depth = 0;
  for (let i = sessionId.indexOf('/'); i >= 0; i = sessionId.indexOf('/', i + 1)) depth++;
  return depth;
}

/** The session a harness edit belongs to in the timeline: the one that asked for it, else none (a person's edit). */
export function harnessOwner(e: StoredEvent): string | null {
  return e.event.type === 'HarnessEdited' ? e.event.requestedBy : null;
}

/**
 * A harness edit goes before the first tree event stamped later than it: the harness log has its
 * own clock order (one writer), and the tree's causal order keeps ts order wherever causality
 * allows, so this is where a reader expects it. Session scope keeps the focused session's events
 * and the edits it asked for.
 */
export function timelineRows(events: readonly StoredEvent[], harness: readonly StoredEvent[], scope: Scope, focus: string): Row[] {
  const keep = (e: StoredEvent) => scope === 'tree' || e.sessionId === focus;
  const keepEdit = (e: StoredEvent) => scope === 'tree' || harnessOwner(e) === focus;
  const edits = harness.filter(keepEdit);
  const rows: Row[] = [];
  let h = 0;
  const pushEdit = (e: StoredEvent) => {
    const owner = harnessOwner(e);
    rows.push({ event: e, depth: owner === null ? 0 : depthOf(owner) });
  };
  for (const e of events) {
    while (h < edits.length && edits[h].ts < e.ts) pushEdit(edits[h++]);
    if (keep(e)) rows.push({ event: e, depth: depthOf(e.sessionId) });
  }
  while (h < edits.length) pushEdit(edits[h++]);
  return rows;
}

/**
 * While the tree loads: the harness edits to place now and how many rows of the scope are still
 * to come. An edit stamped at or after the last event in so far may belong before an event yet
 * to arrive, so it waits (and counts as to come) until the events around it are in.
 */
export function pendingRows(
  tree: { events: readonly StoredEvent[]; harness: readonly StoredEvent[]; expected: Readonly<Record<string, number>> | null },
  scope: Scope, focus: string,
): { harness: readonly StoredEvent[]; toCome: number } {
  const { events, harness, expected } = tree;
  if (expected === null) return { harness, toCome: 0 };
  const last = events.length > 0 ? events[events.length - 1].ts : -Infinity;
  const placed = harness.filter((e) => e.ts < last);
  const held = harness.length - placed.length === 0 ? 0 : harness.filter((e) => e.ts >= last && (scope === 'tree' || harnessOwner(e) === focus)).length;
  let toCome = held;
  if (scope === 'tree') {
    for (const n of Object.values(expected)) toCome += n;
    toCome -= events.length;
  } else {
    toCome += expected[focus] ?? 0;
    for (const e of events) if (e.sessionId === focus) toCome--;
  }
  return { harness: placed, toCome };
}

/** The first fault the verdict names per event id. */
export function faultsByEvent(verdict: TreeVerdict | null): ReadonlyMap<string, string> {
  const map = new Map<string, string>();
  for (const f of verdict?.faults ?? []) if (f.eventId !== null && !map.has(f.eventId)) map.set(f.eventId, f.fault);
  return map;
}

/** Each event by id, the harness log's included. */
export function eventIndex(events: readonly StoredEvent[], harness: readonly StoredEvent[]): ReadonlyMap<string, StoredEvent> {
  const map = new Map<string, StoredEvent>();
  for (const e of events) map.set(e.eventId, e);
  for (const e of harness) map.set(e.eventId, e);
  return map;
}

/** `+1.234s`, `+12:05.3`, `+2:03:04`: time since the tree's first event. */
export function relativeTime(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 60) return `+${s.toFixed(3)}s`;
  const pad = (n: number) => String(Math.floor(n)).padStart(2, '0');
  if (s < 3600) return `+${Math.floor(s / 60)}:${pad(s % 60)}.${Math.floor((s * 10) % 10)}`;
  return `+${Math.floor(s / 3600)}:${pad((s / 60) % 60)}:${pad(s % 60)}`;
}

/** A session's name on a row: its own last segment, the root id's random tail, or `harness` for the tree's harness log. */
export function shortName(sessionId: string): string {
  if (sessionId.startsWith('harness:')) return 'harness';
  const at = sessionId.lastIndexOf('/');
  if (at >= 0) return sessionId.slice(at + 1);
  return sessionId.length > 8 ? sessionId.slice(-6) : sessionId;
}

/** Row index by event id, built with the rows, so moving the selection costs no scan. */
export function rowIndex(rows: readonly Row[]): ReadonlyMap<string, number> {
  const map = new Map<string, number>();
  rows.forEach((r, i) => map.set(r.event.eventId, i));
  return map;
}

/** When the tree began: its earliest event's time (the causal order need not start with it). */
export function treeStart(events: readonly StoredEvent[]): number {
  let min = Infinity;
  for (const e of events) if (e.ts < min) min = e.ts;
  return min === Infinity ? 0 : min;
}
