import type { Kafka } from 'kafkajs';
import type { Keyring } from '../../schemas';
import { readLogInOrder } from './read-log-in-order';
import { verifyTree, type TreeVerdict } from '../../log/verify-tree';

/**
 * The audit of a session tree as the topic holds it: read raw (log order, every record from
 * offset 0, no offset index to trust) and checked with `keys`. `recur audit verify` and the
 * daemon's verify route give the same verdict because both call this.
 */
export async function auditTopicTree(opts: { kafka: Kafka; topic: string; sessionId: string; keys: Keyring }): Promise<TreeVerdict> {
  const log = await readLogInOrder({ kafka: opts.kafka, topic: opts.topic, sessionId: opts.sessionId });
  return verifyTree(opts.sessionId, log, opts.keys);
}
