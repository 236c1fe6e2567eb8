import type { Kafka } from 'kafkajs';
import { EventLogError } from '../../errors';
import type { LogRecord } from './event-collector';
import { throwawayConsumer } from './throwaway-consumer';

export interface ScanTopicOptions {
  kafka: Kafka;
  topic: string;
  /** Called for every record, each partition in offset order (partitions interleave). */
  onRecord: (record: LogRecord) => void;
  /** Give up after this long (default 60 s) with a retryable EventLogError. */
  timeoutMs?: number;
}

/**
 * Hands over every record of the topic from the start of each partition up to its high watermark
 * at call time, in offset order, without deduplicating or sorting: an audit has to see records in
 * the order the log holds them, or a reordered session would look intact.
 */
export async function scanTopic(opts: ScanTopicOptions): Promise<void> {
  const { kafka, topic, onRecord, timeoutMs = 60_000 } = opts;
  const ends = await highWatermarks(kafka, topic);
  if (ends.size === 0) return;

  const { consumer, close } = throwawayConsumer(kafka, 'scan');
  const remaining = new Map(ends);
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<void>((resolve, reject) => {
    // END_BATCH_PROCESS also reports batches with nothing to hand over (transaction markers).
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
      const end = remaining.get(payload.partition);
      if (payload.topic === topic && end !== undefined && BigInt(payload.lastOffset) + 1n >= end) remaining.delete(payload.partition);
      if (remaining.size === 0) resolve();
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart) reject(new EventLogError(`reading ${topic} failed: ${payload.error.message}`, { cause: payload.error, retryable: true }));
    });
    timer = setTimeout(() => {
      const left = [...remaining].map(([p, end]) => `${p} (to ${end})`).join(', ');
      reject(new EventLogError(`reading ${topic} timed out after ${timeoutMs} ms; partitions not read to the end: ${left}`, { retryable: true }));
    }, timeoutMs);
  });
  done.catch(() => undefined); // awaited below; this only keeps it from counting as unhandled meanwhile

  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        const end = ends.get(batch.partition);
        for (const m of batch.messages) {
          if (end === undefined || BigInt(m.offset) >= end) break; // written after the call
          onRecord({ partition: batch.partition, offset: m.offset, key: m.key, value: m.value });
        }
      },
    });
    await done;
  } finally {
    clearTimeout(timer);
    await close();
  }
}

/** High watermark of each partition that has records, as of now. */
async function highWatermarks(kafka: Kafka, topic: string): Promise<Map<number, bigint>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    if (!(await admin.listTopics()).includes(topic)) {
      throw new EventLogError(`event topic ${topic} does not exist`, { hint: 'start the stack (recur up) or pass the right topic (RECUR_KAFKA_TOPIC)' });
    }
    const offsets = await admin.fetchTopicOffsets(topic);
    return new Map(offsets.filter((p) => BigInt(p.high) > BigInt(p.low)).map((p) => [p.partition, BigInt(p.high)]));
  } finally {
    await admin.disconnect();
  }
}
