import type { Kafka, Message, Producer } from 'kafkajs';
import { throwawayConsumer } from '../services/projector/throwaway-consumer';

/** Sends pre-encoded values in batches of `batch`, keyed like the log (one session, one key), acks from all replicas. */
export async function rawProduce(producer: Producer, topic: string, key: string, values: readonly Buffer[], batch: number): Promise<void> {
  for (let i = 0; i < values.length; i += batch) {
    const messages: Message[] = values.slice(i, i + batch).map((value) => ({ key, value }));
    await producer.send({ topic, acks: -1, messages });
  }
}

/**
 * Reads the whole topic up to its current end with the same throwaway consumer the log reader
 * uses, counting records and bytes without decoding anything.
 */
export async function rawConsume(kafka: Kafka, topic: string): Promise<{ records: number; bytes: number }> {
  const admin = kafka.admin();
  await admin.connect();
  const offsets = await admin.fetchTopicOffsets(topic).finally(() => admin.disconnect());
  const remaining = new Map(offsets.filter((p) => BigInt(p.high) > BigInt(p.low)).map((p) => [p.partition, BigInt(p.high)]));
  const ends = new Map(remaining);
  let records = 0;
  let bytes = 0;
  if (remaining.size === 0) return { records, bytes };
  const { consumer, close } = throwawayConsumer(kafka, 'bench-raw');
  try {
    const done = new Promise<void>((resolve, reject) => {
      consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
        const end = remaining.get(payload.partition);
        if (end !== undefined && BigInt(payload.lastOffset) + 1n >= end) remaining.delete(payload.partition);
        if (remaining.size === 0) resolve();
      });
      consumer.on(consumer.events.CRASH, ({ payload }) => reject(payload.error));
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        const end = ends.get(batch.partition) ?? 0n;
        for (const m of batch.messages) {
          if (BigInt(m.offset) >= end) break;
          records += 1;
          bytes += m.value?.length ?? 0;
        }
      },
    });
    await done;
    return { records, bytes };
  } finally {
    await close();
  }
}
