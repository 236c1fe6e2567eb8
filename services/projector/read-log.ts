import type { Kafka } from 'kafkajs';
import { EventLogError } from '../../errors';
import { EventCollector, type LogReadResult } from './event-collector';
import { throwawayConsumer } from './throwaway-consumer';

export interface ReadLogOptions {
  kafka: Kafka;
  topic: string;
  /** The session to read; with `descendants` (the default) its whole subtree too. */
  sessionId: string;
  descendants?: boolean;
  /** Give up after this long (default 60 s) with a retryable EventLogError. */
  timeoutMs?: number;
}

/**
 * Reads a session (tree) from the start of the topic up to the high watermarks at call time,
 * dropping duplicates and reporting, without stopping, every record it cannot decode.
 */
export async function readSessionLog(opts: ReadLogOptions): Promise<LogReadResult> {
  const { kafka, topic, timeoutMs = 60_000 } = opts;
  const collector = new EventCollector({ sessionId: opts.sessionId, descendants: opts.descendants ?? true });
  const ends = await highWatermarks(kafka, topic);
  if (ends.size === 0) return collector.result();

  const { consumer, close } = throwawayConsumer(kafka, 'read');
  const remaining = new Map(ends);
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<void>((resolve, reject) => {
    // END_BATCH_PROCESS also reports batches with nothing to hand over (transaction markers),
    // so progress is seen even where eachBatch is not called.
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
  done.catch(() => undefined); // rejection is awaited below; this only keeps it from counting as unhandled meanwhile

  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        const end = ends.get(batch.partition);
        for (const m of batch.messages) {
          if (end === undefined || BigInt(m.offset) >= end) break; // written after the call
          collector.accept({ partition: batch.partition, offset: m.offset, key: m.key, value: m.value });
        }
      },
    });
    await done;
  } finally {
    clearTimeout(timer);
    await close();
  }
  return collector.result();
}

/** High watermark of each partition that has records, as of now. */
async function highWatermarks(kafka: Kafka, topic: string): Promise<Map<number, bigint>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    // Checked first: kafkajs would otherwise retry a missing topic for as long as its retry policy allows.
    if (!(await admin.listTopics()).includes(topic)) {
      throw new EventLogError(`event topic ${topic} does not exist`, { hint: 'start the stack (recur up) or create it with ensureTopic' });
    }
    const offsets = await admin.fetchTopicOffsets(topic);
    return new Map(offsets.filter((p) => BigInt(p.high) > BigInt(p.low)).map((p) => [p.partition, BigInt(p.high)]));
  } finally {
    await admin.disconnect();
  }
}
