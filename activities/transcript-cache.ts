import { EventGapError, EventLogError } from '../errors';
import type { StoredEvent } from '../schemas';

/** What an event costs the cache: its JSON length, close to its decoded size and cheap next to a model call. */
export const eventBytes = (e: StoredEvent): number => JSON.stringify(e).length;

interface Entry {
  events: StoredEvent[];
  bytes: number;
}

/**
 * A per-worker cache of session logs, fed by this worker's own appends and filled from Kafka
 * when it has a gap (another worker appended, or this one restarted). The log stays the truth:
 * the cache only ever holds a contiguous prefix of it. It holds at most `maxBytes` of events:
 * past that the least recently used sessions are dropped (and re-read from the log on demand),
 * so a worker hosting many long sessions cannot grow without bound.
 */
export class TranscriptCache {
  /** In recency order: the first entry is the least recently used. */
  private readonly sessions = new Map<string, Entry>();
  private total = 0;

  constructor(
    private readonly readLog: (sessionId: string) => Promise<readonly StoredEvent[]>,
    private readonly maxBytes: number,
  ) {}

  /** Bytes held now (never above maxBytes once a call returns). */
  get bytes(): number {
    return this.total;
  }

  /** Adds freshly appended events; a batch that does not extend the cached prefix drops the entry. */
  record(events: readonly StoredEvent[]): void {
    const touched = new Set<string>();
    for (const e of events) {
      if (e.seq === 0) this.put(e.sessionId, { events: [], bytes: 0 });
      const cached = this.sessions.get(e.sessionId);
      if (!cached) continue;
      if (e.seq === cached.events.length) {
        const bytes = eventBytes(e);
        cached.events.push(e);
        cached.bytes += bytes;
        this.total += bytes;
        touched.add(e.sessionId);
      } else if (e.seq > cached.events.length) this.drop(e.sessionId);
    }
    for (const id of touched) this.touch(id);
    this.evict();
  }

  /** Events 0..throughSeq of the session, from memory when complete there, else from the log. */
  async load(sessionId: string, throughSeq: number): Promise<StoredEvent[]> {
    let cached = this.sessions.get(sessionId);
    if (!cached || cached.events.length <= throughSeq) {
      const events = [...(await this.readLog(sessionId))];
      const gap = events.findIndex((e, i) => e.seq !== i);
      if (gap >= 0) throw new EventGapError(sessionId, gap, events[gap].seq);
      if (events.length <= throughSeq) {
        throw new EventLogError(`log of ${sessionId} ends at seq ${events.length - 1}, before ${throughSeq}`, { retryable: true });
      }
      cached = { events, bytes: events.reduce((n, e) => n + eventBytes(e), 0) };
      this.put(sessionId, cached);
    } else {
      this.touch(sessionId);
    }
    const prefix = cached.events.slice(0, throughSeq + 1);
    this.evict();
    return prefix;
  }

  private put(sessionId: string, entry: Entry): void {
    this.drop(sessionId);
    this.sessions.set(sessionId, entry);
    this.total += entry.bytes;
  }

  private drop(sessionId: string): void {
    const entry = this.sessions.get(sessionId);
    if (!entry) return;
    this.total -= entry.bytes;
    this.sessions.delete(sessionId);
  }

  private touch(sessionId: string): void {
    const entry = this.sessions.get(sessionId);
    if (!entry) return;
    this.sessions.delete(sessionId);
    this.sessions.set(sessionId, entry);
  }

  /** Least recently used first, down to the budget; a session bigger than the whole budget is not kept either. */
  private evict(): void {
    for (const id of this.sessions.keys()) {
      if (this.total <= this.maxBytes) return;
      this.drop(id);
    }
  }
}
