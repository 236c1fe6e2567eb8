import type { Kafka } from 'kafkajs';
import { HARNESS_PREFIX } from '../../schemas';
import { EventCollector, type LogReadResult } from './event-collector';
import { rootOf, type OffsetIndex } from './offset-index';
import { scanTopic, type ScanStats } from './scan-topic';

/** A session tree and its root's harness log, as one scan of the topic found them. */
export interface TreeView {
  tree: LogReadResult;
  /** The events of `harness:<root>` (the tree's harness edits), by seq. */
  harness: LogReadResult;
  scanned: ScanStats;
}

/**
 * Reads the tree under `sessionId` and its root's harness log in one scan, from where the tree
 * starts in the topic: the harness log of a tree is written only by the tree's sessions, so none
 * of its records lies before the tree's own first one. Each collector skips other keys before decoding.
 */
export async function readTreeView(opts: { kafka: Kafka; topic: string; sessionId: string; index?: OffsetIndex; timeoutMs?: number }): Promise<TreeView> {
  const root = rootOf(opts.sessionId);
  const tree = new EventCollector({ sessionId: opts.sessionId, descendants: true });
  const harness = new EventCollector({ sessionId: HARNESS_PREFIX + root, descendants: false });
  const scanned = await scanTopic({
    kafka: opts.kafka,
    topic: opts.topic,
    timeoutMs: opts.timeoutMs,
    from: opts.index?.lookup(root) ?? null,
    onRecord: (r) => {
      tree.accept(r);
      harness.accept(r);
    },
  });
  return { tree: tree.result(), harness: harness.result(), scanned };
}
