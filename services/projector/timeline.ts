import type { BlobRef, StoredEvent } from '../../schemas';
import { causalOrder } from '../../log/causal-order';
import { promptSources } from './prompt-sources';

export interface TimelineEntry {
  readonly event: StoredEvent;
  /** Levels below the replayed session: 0 for it, 1 for its children, and so on. */
  readonly depth: number;
  /** Milliseconds since the earliest event of the tree. */
  readonly offsetMs: number;
  /** For a ModelCalled: the events its prompt was rebuilt from, in seq order (the workspace files it showed are its own `contextFiles`). */
  readonly promptFrom?: readonly StoredEvent[];
  /** Every BlobRef the event carries, by field name (outputsBlob, codeBlob, ...). */
  readonly blobs: ReadonlyArray<{ readonly field: string; readonly ref: BlobRef }>;
}

const depthOf = (id: string): number => id.split('/').length;

const isBlobRef = (v: unknown): v is BlobRef =>
  v !== null && typeof v === 'object' && typeof (v as BlobRef).sha256 === 'string' && typeof (v as BlobRef).size === 'number';

/**
 * The BlobRefs of any event, including types added after this code: top-level fields, and fields
 * of records in a top-level array (`contextFiles[0].shown`).
 */
export function blobRefs(event: StoredEvent['event']): TimelineEntry['blobs'] {
  return Object.entries(event).flatMap(([field, v]) => {
    if (isBlobRef(v)) return [{ field, ref: v }];
    if (!Array.isArray(v)) return [];
    return v.flatMap((item: unknown, i) => (item !== null && typeof item === 'object'
      ? Object.entries(item).filter(([, r]) => isBlobRef(r)).map(([k, r]) => ({ field: `${field}[${i}].${k}`, ref: r as BlobRef }))
      : []));
  });
}

/**
 * The tree under `treeId` as one causally ordered timeline (see causal-order.ts), each entry
 * annotated with what a reader of the log alone needs: depth, relative time, prompt provenance
 * and blob references. Pure.
 */
export function buildTimeline(treeId: string, events: readonly StoredEvent[]): TimelineEntry[] {
  const rootDepth = depthOf(treeId);
  const t0 = events.reduce((min, e) => Math.min(min, e.ts), Infinity);
  const sources = promptSources(events);
  return causalOrder(events).map((event) => {
    const promptFrom = event.type === 'ModelCalled' ? sources(event.eventId) : undefined;
    return {
      event,
      depth: depthOf(event.sessionId) - rootDepth,
      offsetMs: event.ts - t0,
      ...(promptFrom && { promptFrom }),
      blobs: blobRefs(event.event),
    };
  });
}
