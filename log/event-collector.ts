import { createHash } from 'node:crypto';
import { decodeEvent, isInSessionTree, type StoredEvent } from '../schemas';

/** A Kafka record as the reader sees it. */
export interface LogRecord {
  partition: number;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
}

export interface UndecodableRecord {
  readonly partition: number;
  readonly offset: string;
  readonly key: string | null;
  readonly reason: string;
}

/** Two records claim the same eventId with different bytes: one of them was not written by a retry. */
export interface EventConflict {
  readonly eventId: string;
  readonly partition: number;
  readonly offset: string;
  /** hash field of the copy that was kept (the first read). */
  readonly keptHash: string;
  /** hash field of the copy at partition/offset, which was dropped. */
  readonly otherHash: string;
  /** The dropped copy itself, so an audit can check its seal. */
  readonly other: StoredEvent;
}

export type Accepted =
  | { readonly kind: 'event'; readonly event: StoredEvent }
  | { readonly kind: 'duplicate'; readonly eventId: string }
  | { readonly kind: 'conflict'; readonly conflict: EventConflict }
  | { readonly kind: 'undecodable'; readonly record: UndecodableRecord }
  | { readonly kind: 'skipped' };

export interface LogScope {
  /** A session id; with `descendants`, its whole subtree (`id`, `id/...`). */
  sessionId: string;
  descendants: boolean;
}

export interface LogReadResult {
  /** Session by session (ids in sorted order, so a parent precedes its children), each by seq. */
  readonly events: readonly StoredEvent[];
  readonly sessions: ReadonlyMap<string, readonly StoredEvent[]>;
  readonly undecodable: readonly UndecodableRecord[];
  readonly conflicts: readonly EventConflict[];
  /** Exact copies dropped (retried appends). */
  readonly duplicates: number;
}

/**
 * Decides what each record of the topic means for a scope: an event of it, a duplicate or
 * conflicting copy of one already seen, a record that cannot be decoded, or someone else's.
 * Pure (no Kafka); both the bounded read and the follow mode feed it.
 */
export class EventCollector {
  private readonly seen = new Map<string, { digest: string; hash: string }>();
  private readonly kept: StoredEvent[] = [];
  private readonly undecodable: UndecodableRecord[] = [];
  private readonly conflicts: EventConflict[] = [];
  private duplicates = 0;

  /** `retain: false` (follow mode) keeps only ids and digests, not the events, for `result()`. */
  constructor(private readonly scope: LogScope, private readonly retain = true) {}

  /** `decode` is how the record's bytes become an event: a reader that has decoded it already hands over its result. */
  accept(record: LogRecord, decode: (value: Buffer) => StoredEvent = decodeEvent): Accepted {
    const key = record.key === null ? null : record.key.toString('utf8');
    if (key !== null && !this.inScope(key)) return { kind: 'skipped' };
    const bad = (reason: string): Accepted => {
      const problem = { partition: record.partition, offset: record.offset, key, reason };
      this.undecodable.push(problem);
      return { kind: 'undecodable', record: problem };
    };
    if (!record.value || record.value.length === 0) return key === null ? { kind: 'skipped' } : bad('empty value');
    let event: StoredEvent;
    try {
      event = decode(record.value);
    } catch (err) {
      return bad((err as Error).message);
    }
    if (key === null && !this.inScope(event.sessionId)) return { kind: 'skipped' };
    if (key !== event.sessionId) return bad(`record key ${JSON.stringify(key)} but event ${event.eventId} belongs to ${event.sessionId}`);

    const digest = createHash('sha256').update(record.value).digest('hex');
    const kept = this.seen.get(event.eventId);
    if (!kept) {
      this.seen.set(event.eventId, { digest, hash: event.hash });
      if (this.retain) this.kept.push(event);
      return { kind: 'event', event };
    }
    if (kept.digest === digest) {
      this.duplicates++;
      return { kind: 'duplicate', eventId: event.eventId };
    }
    const conflict = { eventId: event.eventId, partition: record.partition, offset: record.offset, keptHash: kept.hash, otherHash: event.hash, other: event };
    this.conflicts.push(conflict);
    return { kind: 'conflict', conflict };
  }

  result(): LogReadResult {
    const sessions = new Map<string, StoredEvent[]>();
    for (const event of this.kept) {
      const list = sessions.get(event.sessionId) ?? [];
      sessions.set(event.sessionId, list);
      list.push(event);
    }
    const ids = [...sessions.keys()].sort();
    const sorted = new Map(ids.map((id) => [id, sessions.get(id)!.sort((a, b) => a.seq - b.seq)]));
    return {
      events: ids.flatMap((id) => sorted.get(id)!),
      sessions: sorted,
      undecodable: [...this.undecodable],
      conflicts: [...this.conflicts],
      duplicates: this.duplicates,
    };
  }

  private inScope(sessionId: string): boolean {
    return this.scope.descendants ? isInSessionTree(sessionId, this.scope.sessionId) : sessionId === this.scope.sessionId;
  }
}
