import { EventLogError } from '../../errors';
import type { StartOffsets } from './offset-index';

/** How long a read waits for the follower to get to the topic's end before it gives up. */
const REACH_TIMEOUT_MS = 60_000;

interface Waiter {
  ends: StartOffsets;
  resolve: () => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Where a follower of the whole topic has got to: one past the last offset it handed over in
 * each partition. A read of a tree the follower feeds waits here until the follower has passed
 * the topic's end as of the read, so it holds what a scan would.
 */
export class FollowerPosition {
  private readonly at = new Map<number, bigint>();
  private waiters: Waiter[] = [];
  private stopped: Error | null = null;

  constructor(private readonly timeoutMs = REACH_TIMEOUT_MS) {}

  /** Whether the record at `offset` of `partition` is one not handed over yet (a restarted consumer hands over records again). */
  isNew(partition: number, offset: bigint): boolean {
    return offset >= (this.at.get(partition) ?? 0n);
  }

  /** Everything of `partition` below `next` has been handed over. */
  advance(partition: number, next: bigint): void {
    if (next > (this.at.get(partition) ?? 0n)) this.at.set(partition, next);
  }

  /** Resolves the reads waiting for a position now passed. */
  wake(): void {
    this.waiters = this.waiters.filter((w) => {
      if (!this.passed(w.ends)) return true;
      clearTimeout(w.timer);
      w.resolve();
      return false;
    });
  }

  /** A copy of the position. */
  offsets(): StartOffsets {
    return new Map(this.at);
  }

  /** Whether the follower is past any of `ends`: the topic was deleted and made again under it. */
  beyond(ends: StartOffsets): boolean {
    return [...this.at].some(([p, next]) => next > (ends.get(p) ?? 0n));
  }

  /** Resolves once every partition of `ends` has been handed over up to its offset; rejects once the follower stops. */
  reached(ends: StartOffsets): Promise<void> {
    if (this.stopped) return Promise.reject(this.stopped);
    if (this.passed(ends)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.timer !== timer);
        const left = [...ends].filter(([p, end]) => (this.at.get(p) ?? 0n) < end).map(([p, end]) => `${p} (at ${this.at.get(p) ?? 0n} of ${end})`);
        reject(new EventLogError(`the daemon's follower of the topic did not reach its end within ${this.timeoutMs} ms; partitions behind: ${left.join(', ')}`, { retryable: true }));
      }, this.timeoutMs);
      this.waiters.push({ ends, resolve, reject, timer });
    });
  }

  /** The follower stopped: waiting reads are let go, and later ones refused. */
  stop(reason: Error): void {
    this.stopped = reason;
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.reject(reason);
    }
    this.waiters = [];
  }

  private passed(ends: StartOffsets): boolean {
    return [...ends].every(([p, end]) => (this.at.get(p) ?? 0n) >= end);
  }
}
