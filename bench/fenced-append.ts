import type { Kafka, Producer } from 'kafkajs';
import { encodeEventBatch, ZERO_HASH, type EventSigner, type RecurEventInput } from '../schemas';

export interface FencedWriter {
  /** ms its start took: the broker's InitProducerId, which fences every earlier writer of the session. */
  readonly fenceMs: number;
  /** Appends the session's next events in one committed transaction. */
  append(events: readonly RecurEventInput[], ts: number): Promise<void>;
  /** The session's next seq. */
  readonly nextSeq: number;
  close(): Promise<void>;
}

/**
 * A writer of one session's log that a successor can fence: a transactional producer whose id is
 * the session's own, each append one committed transaction. Starting one aborts whatever
 * transaction an earlier writer of the session left open, and the broker refuses that writer's
 * next send, so two owners of a session can never both write its next seq. Recur's writer is not
 * this yet; the bench measures what it would cost a step (docs/performance.md, "Steps the worker
 * runs"). Readers need no change: kafkajs consumers read committed records only by default.
 */
export async function openFencedWriter(kafka: Kafka, topic: string, signer: EventSigner, sessionId: string): Promise<FencedWriter> {
  const producer: Producer = kafka.producer({ transactionalId: `recur-session/${sessionId}`, idempotent: true, maxInFlightRequests: 1 });
  const t0 = performance.now();
  await producer.connect();
  // kafkajs asks for the producer id (and so fences) at the first transaction.
  await (await producer.transaction()).abort();
  const fenceMs = performance.now() - t0;
  let nextSeq = 0;
  let prevHash = ZERO_HASH;
  return {
    fenceMs,
    get nextSeq() {
      return nextSeq;
    },
    async append(events, ts) {
      const batch = encodeEventBatch({ sessionId, rootId: sessionId, parentId: null, fromSeq: nextSeq, prevHash, events: events.map((event) => ({ ts, event })) }, signer);
      const tx = await producer.transaction();
      try {
        await tx.send({ topic, acks: -1, messages: batch.values.map((value, i) => ({ key: sessionId, value, timestamp: String(batch.records[i].ts) })) });
        await tx.commit();
      } catch (e) {
        await tx.abort().catch(() => undefined);
        throw e;
      }
      nextSeq = batch.nextSeq;
      prevHash = batch.headHash;
    },
    close: () => producer.disconnect(),
  };
}
