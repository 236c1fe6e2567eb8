/**
 * The loaded session tree as the page holds it: the tree route's reply (its first lines while
 * the rest arrives), then the events stream's frames folded in. The events stay in the one causal order the daemon and `recur audit` use
 * (log/causal-order.ts), however the frames of different sessions interleave. Pure.
 */
import { isProblemFrame, type ProblemFrame, type StreamFrame } from '../../services/daemon/api-types';
import { extendCausalOrder } from '../../log/causal-order';
import type { StoredEvent } from '../../schemas';
import type { TreeHead, TreeReply } from '../../services/daemon/api-types';

export interface TreeModel {
  rootId: string;
  events: readonly StoredEvent[];
  harness: readonly StoredEvent[];
  problems: readonly ProblemFrame[];
  /** sessionId → highest seq held: where a reconnect continues. */
  cursor: Readonly<Record<string, number>>;
  /** While the tree route's reply is still arriving: events per session it holds in all. Null once every one is in. */
  expected: Readonly<Record<string, number>> | null;
  version: number;
}

const HARNESS_LOG = 'harness:';

export function fromReply(rootId: string, reply: TreeReply, version = 1): TreeModel {
  return { rootId, events: reply.events, harness: reply.harness, problems: reply.problems, cursor: { ...reply.cursor }, expected: null, version };
}

/** The tree while its reply arrives: the events in so far (a copy), the rest announced by the head's counts. */
export function loadingModel(rootId: string, head: TreeHead, events: readonly StoredEvent[], version: number): TreeModel {
  return { rootId, events: events.slice(), harness: head.harness, problems: head.problems, cursor: {}, expected: head.counts, version };
}

const seen = (cursor: Readonly<Record<string, number>>, e: StoredEvent): boolean =>
  Object.hasOwn(cursor, e.sessionId) && e.seq <= cursor[e.sessionId];

/**
 * Folds a batch of stream frames in: events past the cursor join the tree (the harness log's
 * apart), problems are kept; an event already held (a repeat after a reconnect) is dropped.
 * Returns the same model when nothing changed.
 */
export function applyFrames(model: TreeModel, frames: readonly StreamFrame[]): TreeModel {
  const cursor: Record<string, number> = { ...model.cursor };
  const fresh: StoredEvent[] = [];
  const harness: StoredEvent[] = [];
  const problems: ProblemFrame[] = [];
  for (const frame of frames) {
    if (isProblemFrame(frame)) {
      problems.push(frame);
      continue;
    }
    if (seen(cursor, frame)) continue;
    cursor[frame.sessionId] = frame.seq;
    (frame.sessionId.startsWith(HARNESS_LOG) ? harness : fresh).push(frame);
  }
  if (fresh.length === 0 && harness.length === 0 && problems.length === 0) return model;
  return {
    rootId: model.rootId,
    events: fresh.length > 0 ? extendCausalOrder(model.events, fresh) : model.events,
    harness: harness.length > 0 ? [...model.harness, ...harness] : model.harness,
    problems: problems.length > 0 ? [...model.problems, ...problems] : model.problems,
    cursor,
    expected: null,
    version: model.version + 1,
  };
}

/** The events stream's `after` query value for the model's cursor. */
export const afterParam = (model: TreeModel): string => encodeURIComponent(JSON.stringify(model.cursor));

/** Milliseconds before reconnect attempt `attempt` (0-based): doubling from 500 ms, capped at 10 s. */
export const reconnectDelay = (attempt: number): number => Math.min(10_000, 500 * 2 ** Math.min(attempt, 5));
