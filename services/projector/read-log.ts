import type { Kafka } from 'kafkajs';
import { EventCollector, type LogReadResult } from '../../log/event-collector';
import { rootOf, type OffsetIndex } from './offset-index';
import { scanTopic, type ScanStats } from './scan-topic';

export interface ReadLogOptions {
  kafka: Kafka;
  topic: string;
  /** The session to read; with `descendants` (the default) its whole subtree too. */
  sessionId: string;
  descendants?: boolean;
  /** Give up after this long (default 60 s) with a retryable EventLogError. */
  timeoutMs?: number;
  /** Where trees start in the topic; without it, or without an entry for this tree, the whole topic is read. */
  index?: OffsetIndex;
}

/**
 * Reads a session (tree) from where its tree starts in the topic (the start, without an index
 * entry) up to the high watermarks at call time, dropping duplicates and reporting, without
 * stopping, every record it cannot decode.
 */
export async function readSessionLog(opts: ReadLogOptions): Promise<LogReadResult & { scanned: ScanStats }> {
  const collector = new EventCollector({ sessionId: opts.sessionId, descendants: opts.descendants ?? true });
  const from = opts.index?.lookup(rootOf(opts.sessionId)) ?? null;
  const scanned = await scanTopic({ kafka: opts.kafka, topic: opts.topic, timeoutMs: opts.timeoutMs, from, onRecord: (r) => collector.accept(r) });
  return { ...collector.result(), scanned };
}
