/**
 * The sessions list: Temporal's view of each root (status, phase, times) merged with the log's
 * catalog (task, model, cost) by session id, then searched, filtered and sorted. Pure.
 */
import type { SessionSummary } from '../../services/daemon/api-types';
import type { CatalogEntry } from '../../services/daemon/api-types';

export interface ListRow {
  sessionId: string;
  /** Temporal's status lower-cased, or the phase (idle, unloaded) when set; from the log when Temporal no longer knows it. */
  status: string;
  task: string;
  model: string;
  costUsd: number;
  startMs: number;
  durationMs: number;
}

export type SortKey = 'age' | 'cost' | 'duration';
export interface SortOrder {
  key: SortKey;
  desc: boolean;
}

function statusOf(s: SessionSummary | undefined, c: CatalogEntry | undefined): string {
  if (s) return s.phase ?? s.status.toLowerCase();
  return c?.ended ?? 'unknown';
}

function durationOf(s: SessionSummary | undefined, c: CatalogEntry | undefined, now: number): number {
  if (s) return (s.closeTime ? Date.parse(s.closeTime) : now) - Date.parse(s.startTime);
  return c ? c.lastTs - c.startTs : 0;
}

/** One row per root either source knows; sub-agents are shown in their tree, not here. */
export function mergeRows(sessions: readonly SessionSummary[], catalog: readonly CatalogEntry[], now: number): ListRow[] {
  const bySession = new Map(sessions.filter((s) => !s.sessionId.includes('/')).map((s) => [s.sessionId, s]));
  const byCatalog = new Map(catalog.map((c) => [c.sessionId, c]));
  const ids = new Set([...bySession.keys(), ...byCatalog.keys()]);
  return [...ids].map((sessionId) => {
    const s = bySession.get(sessionId);
    const c = byCatalog.get(sessionId);
    return {
      sessionId,
      status: statusOf(s, c),
      task: c?.task ?? '',
      model: c?.model ?? '',
      costUsd: c?.costUsd ?? 0,
      startMs: s ? Date.parse(s.startTime) : c?.startTs ?? 0,
      durationMs: durationOf(s, c, now),
    };
  });
}

/** Case-insensitive substring of id, task, model or status; `status` 'all' keeps every status. */
export function filterRows(rows: readonly ListRow[], query: string, status: string): ListRow[] {
  const q = query.trim().toLowerCase();
  return rows.filter((r) =>
    (status === 'all' || r.status === status) &&
    (q === '' || [r.sessionId, r.task, r.model, r.status].some((field) => field.toLowerCase().includes(q))));
}

const SORT_VALUE: Record<SortKey, (r: ListRow) => number> = {
  // Age ascending is the youngest first: the latest start.
  age: (r) => -r.startMs,
  cost: (r) => r.costUsd,
  duration: (r) => r.durationMs,
};

/** A stable order: ties fall back to the id, so rows do not jump between polls. */
export function sortRows(rows: readonly ListRow[], order: SortOrder): ListRow[] {
  const value = SORT_VALUE[order.key];
  const sign = order.desc ? -1 : 1;
  return [...rows].sort((a, b) => sign * (value(a) - value(b)) || (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0));
}

/** The statuses the filter offers: those present, sorted. */
export const statusesOf = (rows: readonly ListRow[]): string[] => [...new Set(rows.map((r) => r.status))].sort();

/** Clicking a sort header: a new key starts descending, the same key flips. */
export const toggleSort = (order: SortOrder, key: SortKey): SortOrder => (order.key === key ? { key, desc: !order.desc } : { key, desc: true });
