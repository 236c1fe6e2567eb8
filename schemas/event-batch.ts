import type { RecurEventInput } from './generated/events';
import { encodeEvent, type StoredEvent } from './codec';
import type { EventSigner } from './signature';

export interface EventBatchInput {
  sessionId: string;
  rootId: string;
  parentId: string | null;
  /** seq of the first event in `events`; the session's next seq. */
  fromSeq: number;
  /** Hash of the event at fromSeq - 1 (ZERO_HASH when fromSeq is 0). */
  prevHash: string;
  events: ReadonlyArray<{ ts: number; traceId?: string | null; spanId?: string | null; event: RecurEventInput }>;
}

export interface EncodedBatch {
  readonly records: readonly StoredEvent[];
  /** Kafka values, one per event, in order. */
  readonly values: readonly Buffer[];
  readonly nextSeq: number;
  readonly headHash: string;
}

/** Encodes consecutive events of one session, each chained to the one before and sealed by `signer`. Pure. */
export function encodeEventBatch(input: EventBatchInput, signer?: EventSigner): EncodedBatch {
  const { sessionId, rootId, parentId } = input;
  const records: StoredEvent[] = [];
  const values: Buffer[] = [];
  let prevHash = input.prevHash;
  input.events.forEach((item, i) => {
    const { record, value } = encodeEvent({ sessionId, rootId, parentId, seq: input.fromSeq + i, prevHash, ...item }, signer);
    records.push(record);
    values.push(value);
    prevHash = record.hash;
  });
  return { records, values, nextSeq: input.fromSeq + input.events.length, headHash: prevHash };
}
