import type { Kafka } from 'kafkajs';
import { EventLogError } from '../errors';
import type { EncodedBatch, StoredEvent } from '../schemas';
import { appendError, appendedBatch, brokerErrorIn, produceChunks, type AppendEventsResult } from './event-log';

/** Every session's transactional id starts so: the writer's principal is granted this prefix (services/devstack/kafka-acls.ts). */
export const SESSION_TRANSACTION_PREFIX = 'recur-session/';

/**
 * A step's transaction may begin while the broker still writes the last one's commit markers: the
 * broker refuses it as concurrent and the client asks again. The client's own first wait (200 ms,
 * config/connections.ts) would stall that step; from 10 ms, five more tries keep about the same
 * patience with a broker that is down.
 */
const RETRY = { retries: 15, initialRetryTime: 10 };

/** Broker answers that mean a newer writer of the session has started: this one may never write again. */
const FENCED = new Set(['INVALID_PRODUCER_EPOCH', 'PRODUCER_FENCED']);

export interface FencedLog {
  /** Appends one batch of the session's events (activities/event-log.ts `encodeForLog`) in a transaction of its own, committed before it resolves. */
  append(batch: EncodedBatch): Promise<AppendEventsResult>;
  close(): Promise<void>;
}

/**
 * A writer of one session's log that the next one fences: a transactional producer whose id is
 * the session's own. Opening one aborts whatever transaction an earlier writer of the session
 * left open and makes the broker refuse that writer's next send, so a worker that lost its
 * activity but still runs (a zombie) can never write a second version of a seq after its
 * successor has read the log. Readers need no change: Recur's consumers read committed records
 * only (kafkajs's default), so an aborted append is never seen. docs/performance.md, "Steps the
 * worker runs", says why and what it costs.
 */
export async function openFencedLog(
  deps: { kafka: Kafka; topic: string; onAppended?: (records: readonly StoredEvent[]) => void },
  sessionId: string,
): Promise<FencedLog> {
  const producer = deps.kafka.producer({ transactionalId: `${SESSION_TRANSACTION_PREFIX}${sessionId}`, idempotent: true, maxInFlightRequests: 1, retry: RETRY });
  try {
    await producer.connect();
    // kafkajs asks for the producer id, which fences every earlier writer, at the first transaction.
    await (await producer.transaction()).abort();
  } catch (cause) {
    await producer.disconnect().catch(() => undefined);
    throw new EventLogError(`could not open ${sessionId}'s fenced writer on ${deps.topic}: ${(cause as Error).message}`, { cause, retryable: true });
  }
  return {
    async append(batch) {
      const chunks = produceChunks(batch, sessionId);
      if (chunks.length === 0) return appendedBatch(batch);
      const tx = await producer.transaction().catch((cause: unknown) => {
        throw writeFailed(cause, deps.topic, sessionId, batch);
      });
      try {
        for (const chunk of chunks) await tx.send({ topic: deps.topic, acks: -1, messages: chunk });
        await tx.commit();
      } catch (cause) {
        await tx.abort().catch(() => undefined);
        throw writeFailed(cause, deps.topic, sessionId, batch);
      }
      deps.onAppended?.(batch.records);
      return appendedBatch(batch);
    },
    close: () => producer.disconnect(),
  };
}

function writeFailed(cause: unknown, topic: string, sessionId: string, batch: Parameters<typeof appendError>[2]): EventLogError {
  if (brokerErrorIn(cause, FENCED) === undefined) return appendError(cause, topic, batch);
  return new EventLogError(`${sessionId}'s writer was fenced: a newer writer of the session has started, so this one appends nothing more`, { cause, retryable: false });
}
