import type { Kafka } from 'kafkajs';
import { EventLogError } from '../../errors';
import type { LogRecord } from '../../log/event-collector';
import { dropPartitionsAtEnd, partitionOffsets } from './scan-topic';
import { readFromStart, throwawayConsumer } from './throwaway-consumer';

export interface TopicFollower {
  /** Whether every partition has been read up to its end as it was when the follower started. */
  caughtUp(): boolean;
  /** Why the follower stopped on its own (the consumer crashed for good); null while it runs. */
  failure(): Error | null;
  stop(): Promise<void>;
}

export interface FollowTopicOptions {
  kafka: Kafka;
  topic: string;
  purpose: string;
  onRecord: (record: LogRecord) => void;
  /**
   * After each batch: every record of `partition` below `next` has been handed over. A batch can
   * end in records no reader is handed (transaction markers), so this is where a partition's
   * position is known, not from the last record.
   */
  onBatchEnd?: (partition: number, next: bigint) => void;
  /** The consumer crashed for good (what `failure()` reports from then on). */
  onFailure?: (error: Error) => void;
}

/**
 * Hands over every record of the whole topic from offset 0, then live ones as they arrive, each
 * partition in offset order, until stopped: the base of the read models over all trees (the
 * catalog, the tree cache's read-ahead). Resolves once the consumer runs.
 */
export async function followTopic(opts: FollowTopicOptions): Promise<TopicFollower> {
  const { kafka, topic } = opts;
  const offsets = await partitionOffsets(kafka, topic);
  const remaining = new Map(offsets.filter((p) => p.high > p.low).map((p) => [p.partition, p.high]));
  const { consumer, close } = throwawayConsumer(kafka, opts.purpose);
  let failure: Error | null = null;
  dropPartitionsAtEnd(consumer, topic, remaining);
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
    if (payload.topic === topic) opts.onBatchEnd?.(payload.partition, BigInt(payload.lastOffset) + 1n);
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (payload.restart) return;
    failure = new EventLogError(`following ${topic} failed: ${payload.error.message}`, { cause: payload.error, retryable: true });
    opts.onFailure?.(failure);
  });
  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= close());
  try {
    await readFromStart(consumer, topic, async ({ batch }) => {
      for (const m of batch.messages) opts.onRecord({ partition: batch.partition, offset: m.offset, key: m.key, value: m.value });
    });
  } catch (err) {
    await stop();
    throw new EventLogError(`following ${topic} failed: ${(err as Error).message}`, { cause: err, retryable: true });
  }
  return { caughtUp: () => remaining.size === 0, failure: () => failure, stop };
}
