import type { Kafka } from 'kafkajs';
import type { OffsetIndex } from './offset-index';
import { partitionOffsets } from './scan-topic';

/**
 * What the log writer calls before a new tree's first record: takes the index entry (every
 * partition's high watermark now) unless the tree has one, e.g. from a first attempt whose
 * acknowledgement was lost. Best effort: a tree without an entry is still read, only from offset 0.
 */
export function treeStartMarker(kafka: Kafka, topic: string, index: OffsetIndex): (rootId: string) => Promise<void> {
  return async (rootId) => {
    try {
      if (index.lookup(rootId)) return;
      const offsets = await partitionOffsets(kafka, topic);
      index.mark(rootId, new Map(offsets.map((p) => [p.partition, p.high])));
    } catch {
      // The append goes on; readers of this tree fall back to a full scan.
    }
  };
}
