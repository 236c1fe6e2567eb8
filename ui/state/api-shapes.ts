/**
 * The daemon's viewer replies the page reads, as the viewer contract states them. Declared here
 * until the daemon's own definitions (services/daemon/api-types.ts) hold them; type-only.
 */
import type { ProblemFrame } from '../../services/daemon/api-types';
import type { StoredEvent } from '../../schemas';

/** `GET /v1/sessions/:id/tree`. */
export interface TreeReply {
  /** The tree under the id, in causal order. */
  events: StoredEvent[];
  /** The log `harness:<root>`, in seq order. */
  harness: StoredEvent[];
  problems: ProblemFrame[];
  /** sessionId → highest seq included: the events stream's `after`. */
  cursor: Record<string, number>;
}

/** One root tree of `GET /v1/catalog`; times in ms. */
export interface CatalogEntry {
  sessionId: string;
  task: string;
  model: string;
  startTs: number;
  lastTs: number;
  ended: 'completed' | 'failed' | 'closed' | null;
  costUsd: number;
  tokensIn: number;
  tokensOut: number;
  turns: number;
  sessions: number;
  events: number;
}

export interface CatalogReply {
  roots: CatalogEntry[];
  /** Whether the catalog has caught up with the log as it was when the daemon started reading it. */
  complete: boolean;
}
