import type { Consumer, Kafka } from 'kafkajs';
import { EventLogError } from '../../errors';
import type { LogRecord } from '../../log/event-collector';
import { startOf, usableEntry, type StartOffsets } from './offset-index';
import { readFromStart, throwawayConsumer } from './throwaway-consumer';

export interface ScanTopicOptions {
  kafka: Kafka;
  topic: string;
  /** Called for every record, each partition in offset order (partitions interleave). */
  onRecord: (record: LogRecord) => void;
  /** Give up after this long (default 60 s) with a retryable EventLogError. */
  timeoutMs?: number;
  /** Skip each partition up to here (a tree's offset-index entry); partitions it does not name are read from their start. */
  from?: StartOffsets | null;
}

/** What a scan read: where each partition's reading started and ended, and how many records it handed over. */
export interface ScanStats {
  from: Record<number, string>;
  /** Every partition's high watermark at call time, empty ones included: a later scan from here reads only what came after. */
  to: Record<number, string>;
  records: number;
}

/**
 * Hands over every record of the topic from the start of each partition (or `from`) up to its
 * high watermark at call time, in offset order, without deduplicating or sorting: an audit has to
 * see records in the order the log holds them, or a reordered session would look intact.
 */
export async function scanTopic(opts: ScanTopicOptions): Promise<ScanStats> {
  const { kafka, topic, onRecord, timeoutMs = 60_000 } = opts;
  const offsets = await partitionOffsets(kafka, topic);
  const from = usableEntry(opts.from ?? null, offsets);
  const ends = new Map(offsets.filter((p) => p.high > p.low).map((p) => [p.partition, p.high]));
  const stats: ScanStats = {
    from: Object.fromEntries([...ends.keys()].map((p) => [p, startOf(from, p).toString()])),
    to: Object.fromEntries(offsets.map((p) => [p.partition, p.high.toString()])),
    records: 0,
  };
  const remaining = new Map([...ends].filter(([p, end]) => startOf(from, p) < end));
  if (remaining.size === 0) return stats;

  const { consumer, close } = throwawayConsumer(kafka, 'scan');
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<void>((resolve, reject) => {
    dropPartitionsAtEnd(consumer, topic, remaining, resolve);
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
    await readFromStart(consumer, topic, async ({ batch }) => {
      const end = ends.get(batch.partition);
      const start = startOf(from, batch.partition);
      for (const m of batch.messages) {
        const offset = BigInt(m.offset);
        if (end === undefined || offset >= end) break; // written after the call
        if (offset < start) continue; // fetched before the seek took hold
        stats.records++;
        onRecord({ partition: batch.partition, offset: m.offset, key: m.key, value: m.value });
      }
    });
    seekTo(consumer, topic, from);
    await done;
    return stats;
  } finally {
    clearTimeout(timer);
    await close();
  }
}

/**
 * Deletes each partition from `remaining` (partition → end offset) once the consumer has read up
 * to its end, and calls `allRead` when none is left. END_BATCH_PROCESS also reports batches with
 * nothing to hand over (transaction markers), so a partition ending in one is seen to end too.
 */
export function dropPartitionsAtEnd(consumer: Consumer, topic: string, remaining: Map<number, bigint>, allRead: () => void = () => undefined): void {
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
    const end = remaining.get(payload.partition);
    if (payload.topic === topic && end !== undefined && BigInt(payload.lastOffset) + 1n >= end) remaining.delete(payload.partition);
    if (remaining.size === 0) allRead();
  });
}

/**
 * Moves each partition `from` names to its offset. kafkajs seeks only once a consumer runs; a
 * batch fetched before the seek holds records below it, which readers skip.
 */
export function seekTo(consumer: Consumer, topic: string, from: StartOffsets | null): void {
  for (const [partition, offset] of from ?? []) if (offset > 0n) consumer.seek({ topic, partition, offset: offset.toString() });
}

/** Each partition's high watermark, as of now: where a read that must hold everything written so far ends. */
export async function highWatermarks(kafka: Kafka, topic: string): Promise<StartOffsets> {
  return new Map((await partitionOffsets(kafka, topic)).map((p) => [p.partition, p.high]));
}

/** Low and high watermark of every partition of the topic, as of now. */
export async function partitionOffsets(kafka: Kafka, topic: string): Promise<Array<{ partition: number; low: bigint; high: bigint }>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    if (!(await admin.listTopics()).includes(topic)) {
      throw new EventLogError(`event topic ${topic} does not exist`, { hint: 'start the stack (recur up) or pass the right topic (RECUR_KAFKA_TOPIC)' });
    }
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.map((p) => ({ partition: p.partition, low: BigInt(p.low), high: BigInt(p.high) }));
  } finally {
    await admin.disconnect();
  }
}
