import type { Kafka } from 'kafkajs';
import { inOrderCollector, type LogInOrder } from '../../log/in-order-collector';
import { scanTopic } from './scan-topic';

/** Reads the tree under `sessionId` (itself and all descendants) up to the log's end at call time. */
export async function readLogInOrder(opts: { kafka: Kafka; topic: string; sessionId: string; timeoutMs?: number }): Promise<LogInOrder> {
  const collector = inOrderCollector(opts.sessionId);
  await scanTopic({ kafka: opts.kafka, topic: opts.topic, timeoutMs: opts.timeoutMs, onRecord: (r) => collector.accept(r) });
  return collector.result();
}
