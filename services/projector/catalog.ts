/*
 * The catalog of session trees: one summary per root, folded event by event from the whole
 * topic. Pure, no Node modules. It keeps numbers only, never events, so a follower over a topic
 * of millions of events holds one entry per tree and one number per session.
 */
import type { StoredEvent } from '../../schemas';
import { cutChars } from '../../schemas/field-limits';
import { HARNESS_PREFIX, sessionRoot } from '../../schemas/session-ids';
import { addSpent, spentOf, type Spent } from './cost-tree';

/** The task as the catalog shows it: enough to recognise a run by, not the whole prompt. */
export const CATALOG_TASK_CHARS = 500;

export interface CatalogEntry {
  /** The root's session id. */
  sessionId: string;
  /** The root's SessionStarted task, cut to CATALOG_TASK_CHARS; empty until that event is folded. */
  task: string;
  /** The root's latest model (SessionStarted, then each ModelSwitched). */
  model: string;
  /** Earliest and latest event time in the tree, ms since the epoch. */
  startTs: number;
  lastTs: number;
  /** How the root's log ended last: its first answer or failure, or a retained root closed for good; null while open. */
  ended: 'completed' | 'failed' | 'closed' | null;
  costUsd: number;
  tokensIn: number;
  tokensOut: number;
  /** ModelCalled events over the tree. */
  turns: number;
  /** Sessions of the tree with at least one event. */
  sessions: number;
  events: number;
}

export interface Catalog {
  readonly roots: Map<string, { entry: CatalogEntry; spent: Spent }>;
  /** Per session, one past the highest seq folded: a copy at or below it (a retried append) is not counted again. */
  readonly nextSeq: Map<string, number>;
}

export const emptyCatalog = (): Catalog => ({ roots: new Map(), nextSeq: new Map() });

const ENDS: Partial<Record<StoredEvent['type'], CatalogEntry['ended']>> = { SessionCompleted: 'completed', SessionFailed: 'failed', SessionClosed: 'closed' };

/** Folds one event into the catalog; false when it adds nothing (a harness log's event, or a copy already folded). */
export function foldCatalog(catalog: Catalog, e: StoredEvent): boolean {
  if (e.sessionId.startsWith(HARNESS_PREFIX)) return false;
  const next = catalog.nextSeq.get(e.sessionId);
  if (next !== undefined && e.seq < next) return false;
  catalog.nextSeq.set(e.sessionId, e.seq + 1);
  const root = sessionRoot(e.sessionId);
  let at = catalog.roots.get(root);
  if (!at) {
    at = {
      entry: { sessionId: root, task: '', model: '', startTs: e.ts, lastTs: e.ts, ended: null, costUsd: 0, tokensIn: 0, tokensOut: 0, turns: 0, sessions: 0, events: 0 },
      spent: { tokensIn: 0, tokensOut: 0, costUsd: 0, calls: 0, modelMs: 0, estimatedCalls: 0 },
    };
    catalog.roots.set(root, at);
  }
  const { entry, spent } = at;
  entry.events++;
  if (next === undefined) entry.sessions++;
  entry.startTs = Math.min(entry.startTs, e.ts);
  entry.lastTs = Math.max(entry.lastTs, e.ts);
  const cost = spentOf(e.event);
  if (cost) addSpent(spent, cost);
  if (e.sessionId === root) {
    const ev = e.event;
    if (ev.type === 'SessionStarted') Object.assign(entry, { task: cutChars(ev.task, CATALOG_TASK_CHARS), model: ev.model });
    if (ev.type === 'ModelSwitched') entry.model = ev.model;
    const ended = ENDS[ev.type];
    if (ended) entry.ended = ended;
  }
  return true;
}

/** Every root's summary, the newest tree first (ties by id, so the order is stable). */
export function catalogEntries(catalog: Catalog): CatalogEntry[] {
  return [...catalog.roots.values()]
    .map(({ entry, spent }) => ({ ...entry, costUsd: spent.costUsd, tokensIn: spent.tokensIn, tokensOut: spent.tokensOut, turns: spent.calls }))
    .sort((a, b) => b.startTs - a.startTs || (a.sessionId < b.sessionId ? -1 : 1));
}
