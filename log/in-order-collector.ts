import type { StoredEvent } from '../schemas';
import { EventCollector, type EventConflict, type LogRecord, type UndecodableRecord } from './event-collector';

/** A session tree as the log holds it: nothing sorted, so an audit can see reorders. */
export interface LogInOrder {
  /** Each session's events in the order its partition holds them, exact duplicates dropped. */
  readonly sessions: ReadonlyMap<string, readonly StoredEvent[]>;
  /** Records keyed inside the tree that could not be decoded (or belong to another session). */
  readonly undecodable: readonly UndecodableRecord[];
  readonly conflicts: readonly EventConflict[];
  /** Exact copies dropped (retried appends). */
  readonly duplicates: number;
}

/** Feeds records (from Kafka or a test) through the deduplicating collector, keeping log order. */
export function inOrderCollector(sessionId: string): { accept(record: LogRecord): void; result(): LogInOrder } {
  const collector = new EventCollector({ sessionId, descendants: true }, false);
  const sessions = new Map<string, StoredEvent[]>();
  const undecodable: UndecodableRecord[] = [];
  const conflicts: EventConflict[] = [];
  let duplicates = 0;
  return {
    accept(record) {
      const accepted = collector.accept(record);
      if (accepted.kind === 'event') {
        const list = sessions.get(accepted.event.sessionId) ?? [];
        sessions.set(accepted.event.sessionId, list);
        list.push(accepted.event);
      } else if (accepted.kind === 'duplicate') duplicates++;
      else if (accepted.kind === 'conflict') conflicts.push(accepted.conflict);
      // A record without a key names no session, so it lies in no tree's key range.
      else if (accepted.kind === 'undecodable' && accepted.record.key !== null) undecodable.push(accepted.record);
    },
    result: () => ({ sessions, undecodable, conflicts, duplicates }),
  };
}
