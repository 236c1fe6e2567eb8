import type { Kafka } from 'kafkajs';
import { EventCollector, type LogReadResult } from './event-collector';
import { scanTopic } from './scan-topic';

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
  const collector = new EventCollector({ sessionId: opts.sessionId, descendants: opts.descendants ?? true });
  await scanTopic({ kafka: opts.kafka, topic: opts.topic, timeoutMs: opts.timeoutMs, onRecord: (r) => collector.accept(r) });
  return collector.result();
}
