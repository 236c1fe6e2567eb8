import { runsOutside } from '../../../activities/workspace/sensitive-paths';
import type { StoredEvent, WorkspaceChange } from '../../../schemas';
import { sessionsOf } from './tree-outcome';

/** A file a session of the tree changed that runs or is read later outside Recur, as its scans flagged it. */
export interface OutsideChange {
  sessionId: string;
  path: string;
  /** Each kind of change its flagged scans logged, in log order, once each (`added, modified`). */
  changes: WorkspaceChange[];
  /** The sensitive-path rule it matched last; null for git's own metadata. */
  rule: string | null;
  /** The last WorkspaceChanged that flagged it. */
  eventId: string;
}

const rank = (c: OutsideChange): number => (c.rule === null ? 0 : 1);

/**
 * The tree's flagged changes, one per session and path: sessions as the reports list them (root
 * first), and in each git metadata, then sensitive paths, each by path, as WorkspaceChanged orders them.
 */
export function outsideChanges(events: readonly StoredEvent[]): OutsideChange[] {
  const order = new Map(sessionsOf(events).map((s, i) => [s.sessionId, i]));
  const found = new Map<string, OutsideChange>();
  for (const e of [...events].sort((a, b) => (order.get(a.sessionId) ?? 0) - (order.get(b.sessionId) ?? 0) || a.seq - b.seq)) {
    if (e.event.type !== 'WorkspaceChanged') continue;
    for (const f of e.event.files.filter(runsOutside)) {
      const key = `${e.sessionId}\0${f.path}`;
      const seen = found.get(key);
      const rule = f.kind === 'file' ? f.sensitive : null;
      if (!seen) found.set(key, { sessionId: e.sessionId, path: f.path, changes: [f.change], rule, eventId: e.eventId });
      else Object.assign(seen, { rule, eventId: e.eventId, changes: seen.changes.includes(f.change) ? seen.changes : [...seen.changes, f.change] });
    }
  }
  return [...found.values()].sort((a, b) =>
    (order.get(a.sessionId) ?? 0) - (order.get(b.sessionId) ?? 0) || rank(a) - rank(b) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Why a change is listed: the rule it matched, or git's metadata. */
export const outsideWhy = (c: OutsideChange): string => (c.rule === null ? 'git metadata' : `sensitive path (rule ${c.rule})`);
