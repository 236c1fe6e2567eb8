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

/**
 * Hands over every record of the whole topic from offset 0, then live ones as they arrive, each
 * partition in offset order, until stopped: the base of a read model over all trees (the
 * catalog). Resolves once the consumer runs.
 */
export async function followTopic(opts: { kafka: Kafka; topic: string; purpose: string; onRecord: (record: LogRecord) => void }): Promise<TopicFollower> {
  const { kafka, topic } = opts;
  const offsets = await partitionOffsets(kafka, topic);
  const remaining = new Map(offsets.filter((p) => p.high > p.low).map((p) => [p.partition, p.high]));
  const { consumer, close } = throwawayConsumer(kafka, opts.purpose);
  let failure: Error | null = null;
  dropPartitionsAtEnd(consumer, topic, remaining);
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (!payload.restart) failure = new EventLogError(`following ${topic} failed: ${payload.error.message}`, { cause: payload.error, retryable: true });
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
