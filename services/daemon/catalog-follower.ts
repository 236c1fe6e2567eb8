import type { Kafka } from 'kafkajs';
import { decodeEvent, type StoredEvent } from '../../schemas';
import { EventLogError, HttpError } from '../../errors';
import { catalogEntries, emptyCatalog, foldCatalog } from '../projector/catalog';
import { followTopic, type TopicFollower } from '../projector/follow-topic';
import type { ReadAhead } from '../projector/tree-cache';
import type { CatalogReply } from './api-types';

export interface CatalogFollower {
  /** The catalog as folded so far; the first call starts the follower, a call after it failed starts a fresh one. */
  reply(): Promise<CatalogReply>;
  close(): Promise<void>;
}

/**
 * The daemon's catalog read model: folds the whole topic from offset 0, then live, into one
 * summary per root tree, and hands the same records (decoded once) to the tree cache's
 * read-ahead. Nothing runs until the first request, so a daemon nobody browses reads nothing;
 * a record that cannot be decoded is skipped and counted.
 */
export function catalogFollower(kafka: Kafka, topic: string, trees: { follow(): ReadAhead }): CatalogFollower {
  let running: Promise<{ follower: TopicFollower; reply: () => CatalogReply; ahead: ReadAhead }> | undefined;
  let closed = false;

  const start = async () => {
    const catalog = emptyCatalog();
    let undecodable = 0;
    const ahead = trees.follow();
    try {
      const follower = await followTopic({
        kafka, topic, purpose: 'catalog',
        onRecord: (r) => {
          const decode = decodedOnce();
          try {
            const event = r.value && decode(r.value);
            if (event && r.key?.toString('utf8') === event.sessionId) foldCatalog(catalog, event);
            else undecodable++;
          } catch {
            undecodable++;
          }
          ahead.offer(r, decode);
        },
        onBatchEnd: (partition, next) => ahead.batchEnd(partition, next),
        onFailure: (err) => ahead.stop(err),
      });
      return { follower, ahead, reply: (): CatalogReply => ({ roots: catalogEntries(catalog), complete: follower.caughtUp(), undecodable }) };
    } catch (err) {
      ahead.stop(err as Error);
      throw err;
    }
  };

  return {
    async reply() {
      if (closed) throw new HttpError(503, 'the daemon is shutting down', 'ShuttingDownError');
      const started = (running ??= start());
      started.catch(() => {
        if (running === started) running = undefined;
      });
      const { follower, reply } = await started;
      const failure = follower.failure();
      if (failure) {
        if (running === started) running = undefined;
        await follower.stop();
        throw failure;
      }
      return reply();
    },
    async close() {
      closed = true;
      const started = await running?.catch(() => undefined);
      started?.ahead.stop(new EventLogError('the daemon is shutting down'));
      await started?.follower.stop();
    },
  };
}

/** A decoder for one record that decodes it the first time it is asked and hands back that result (or error) after. */
function decodedOnce(): (value: Buffer) => StoredEvent {
  let result: { event: StoredEvent } | { error: unknown } | undefined;
  return (value) => {
    if (!result) {
      try {
        result = { event: decodeEvent(value) };
      } catch (error) {
        result = { error };
      }
    }
    if ('error' in result) throw result.error;
    return result.event;
  };
}
