import type { Kafka } from 'kafkajs';
import { decodeEvent } from '../../schemas';
import { catalogEntries, emptyCatalog, foldCatalog } from '../projector/catalog';
import { followTopic, type TopicFollower } from '../projector/follow-topic';
import type { CatalogReply } from './api-types';
import { DaemonHttpError } from './http-error';

export interface CatalogFollower {
  /** The catalog as folded so far; the first call starts the follower, a call after it failed starts a fresh one. */
  reply(): Promise<CatalogReply>;
  close(): Promise<void>;
}

/**
 * The daemon's catalog read model: folds the whole topic from offset 0, then live, into one
 * summary per root tree. Nothing runs until the first request, so a daemon nobody browses with
 * reads nothing; a record that cannot be decoded is skipped and counted.
 */
export function catalogFollower(kafka: Kafka, topic: string): CatalogFollower {
  let running: Promise<{ follower: TopicFollower; reply: () => CatalogReply }> | undefined;
  let closed = false;

  const start = async () => {
    const catalog = emptyCatalog();
    let undecodable = 0;
    const follower = await followTopic({
      kafka, topic, purpose: 'catalog',
      onRecord: (r) => {
        try {
          const event = r.value && decodeEvent(r.value);
          if (event && r.key?.toString('utf8') === event.sessionId) foldCatalog(catalog, event);
          else undecodable++;
        } catch {
          undecodable++;
        }
      },
    });
    return { follower, reply: (): CatalogReply => ({ roots: catalogEntries(catalog), complete: follower.caughtUp(), undecodable }) };
  };

  return {
    async reply() {
      if (closed) throw new DaemonHttpError(503, 'the daemon is shutting down', 'ShuttingDownError');
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
      await started?.follower.stop();
    },
  };
}
