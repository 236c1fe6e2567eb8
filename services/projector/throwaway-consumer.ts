import { randomUUID } from 'node:crypto';
import type { Consumer, EachBatchHandler, Kafka } from 'kafkajs';

/**
 * The broker answers a fetch as soon as data arrives, so this bounds only how long an idle
 * consumer's disconnect waits for its pending fetch (kafkajs's 5 s default made stopping slow).
 */
const FETCH_WAIT_MS = 250;

/**
 * kafkajs consumes only through a consumer group, so each read gets a group of its own. It never
 * commits offsets, and `close` deletes the group, so reads leave nothing behind on the broker.
 */
export function throwawayConsumer(kafka: Kafka, purpose: string): { consumer: Consumer; close(): Promise<void> } {
  const groupId = `recur-${purpose}-${randomUUID()}`;
  const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false, maxWaitTimeInMs: FETCH_WAIT_MS });
  return {
    consumer,
    async close() {
      await consumer.disconnect();
      const admin = kafka.admin();
      try {
        await admin.connect();
        await admin.deleteGroups([groupId]);
      } catch {
        // Best effort: an empty group without offsets holds nothing, and the broker expires it.
      } finally {
        await admin.disconnect();
      }
    },
  };
}

/** Runs `consumer` over every partition of `topic` from its start, committing nothing: a reader seeks elsewhere after (seekTo). */
export async function readFromStart(consumer: Consumer, topic: string, eachBatch: EachBatchHandler): Promise<void> {
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({ autoCommit: false, eachBatch });
}
