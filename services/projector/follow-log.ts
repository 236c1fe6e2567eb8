import type { Kafka } from 'kafkajs';
import { EventLogError } from '../../errors';
import { EventCollector, type Accepted } from '../../log/event-collector';
import { rootOf, startOf, usableEntry, type OffsetIndex } from './offset-index';
import { partitionOffsets, seekTo } from './scan-topic';
import { readFromStart, throwawayConsumer } from './throwaway-consumer';

export interface FollowLogOptions {
  kafka: Kafka;
  topic: string;
  /** The session to follow; with `descendants` (the default) its whole subtree too. */
  sessionId: string;
  descendants?: boolean;
  /** Ends the iteration (the iterator returns) when aborted. */
  signal?: AbortSignal;
  /** Where trees start in the topic; without it, or without an entry for this tree, history is read from offset 0. */
  index?: OffsetIndex;
}

/** New events, and problems worth showing; duplicates and other sessions' records are left out. */
export type FollowItem = Extract<Accepted, { kind: 'event' | 'undecodable' | 'conflict' }>;

/** Items buffered before the consumer waits for the reader of the iterator. */
const MAX_BUFFERED = 1000;

/**
 * Yields a session tree's events from where the tree starts in the topic, then live as they arrive, in log
 * order: a session's records sit in one partition in seq order, so each session's events come
 * in seq order; sessions interleave. Ends on abort or when the caller stops iterating.
 */
export async function* followSessionLog(opts: FollowLogOptions): AsyncGenerator<FollowItem, void, undefined> {
  const { kafka, topic, signal } = opts;
  const collector = new EventCollector({ sessionId: opts.sessionId, descendants: opts.descendants ?? true }, false);
  const entry = opts.index?.lookup(rootOf(opts.sessionId)) ?? null;
  const from = entry && usableEntry(entry, await partitionOffsets(kafka, topic));
  const { consumer, close } = throwawayConsumer(kafka, 'follow');
  const queue: FollowItem[] = [];
  let failure: Error | undefined;
  let stopped = false;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    wake?.();
    wake = undefined;
  };
  const stop = (): void => {
    stopped = true;
    notify();
  };
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (payload.restart) return;
    failure = new EventLogError(`following ${topic} failed: ${payload.error.message}`, { cause: payload.error, retryable: true });
    notify();
  });
  signal?.addEventListener('abort', stop, { once: true });

  try {
    await readFromStart(consumer, topic, async ({ batch, heartbeat, isRunning }) => {
      const start = startOf(from, batch.partition);
      for (const m of batch.messages) {
        if (BigInt(m.offset) < start) continue; // fetched before the seek took hold
        const accepted = collector.accept({ partition: batch.partition, offset: m.offset, key: m.key, value: m.value });
        if (accepted.kind === 'event' || accepted.kind === 'undecodable' || accepted.kind === 'conflict') queue.push(accepted);
      }
      notify();
      while (queue.length > MAX_BUFFERED && isRunning() && !stopped) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        await heartbeat();
      }
    });
    seekTo(consumer, topic, from);
    while (!stopped && !signal?.aborted) {
      if (failure) throw failure;
      const item = queue.shift();
      if (item) yield item;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    signal?.removeEventListener('abort', stop);
    stopped = true;
    await close();
  }
}
