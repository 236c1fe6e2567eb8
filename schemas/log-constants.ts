/**
 * Constants of the log format with no dependencies, so workflow code (which may not load avsc
 * or node:crypto) can import them directly instead of through schemas/index.ts.
 */

/** prevHash of every session's first event. */
export const ZERO_HASH = '0'.repeat(64);

/** Well under Kafka's default 1 MiB record-batch limit; larger content belongs in the blob store. */
export const MAX_EVENT_BYTES = 512 * 1024;
