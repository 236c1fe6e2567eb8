import { EventGapError, EventLogError } from '../errors';
import type { StoredEvent } from '../schemas';

/** Sessions kept in memory; the least recently used beyond this are dropped and re-read on demand. */
const MAX_SESSIONS = 256;

/**
 * A per-worker cache of session logs, fed by this worker's own appends and filled from Kafka
 * when it has a gap (another worker appended, or this one restarted). The log stays the truth:
 * the cache only ever holds a contiguous prefix of it.
 */
export class TranscriptCache {
  private readonly sessions = new Map<string, StoredEvent[]>();

  constructor(private readonly readLog: (sessionId: string) => Promise<readonly StoredEvent[]>) {}

  /** Adds freshly appended events; a batch that does not extend the cached prefix drops the entry. */
  record(events: readonly StoredEvent[]): void {
    for (const e of events) {
      if (e.seq === 0) this.sessions.set(e.sessionId, []);
      const cached = this.sessions.get(e.sessionId);
      if (!cached) continue;
      if (e.seq === cached.length) cached.push(e);
      else if (e.seq > cached.length) this.sessions.delete(e.sessionId);
    }
  }

  /** Events 0..throughSeq of the session, from memory when complete there, else from the log. */
  async load(sessionId: string, throughSeq: number): Promise<StoredEvent[]> {
    let cached = this.sessions.get(sessionId);
    if (!cached || cached.length <= throughSeq) {
      cached = [...(await this.readLog(sessionId))];
      const gap = cached.findIndex((e, i) => e.seq !== i);
      if (gap >= 0) throw new EventGapError(sessionId, gap, cached[gap].seq);
      if (cached.length <= throughSeq) {
        throw new EventLogError(`log of ${sessionId} ends at seq ${cached.length - 1}, before ${throughSeq}`, { retryable: true });
      }
    }
    this.sessions.delete(sessionId);
    this.sessions.set(sessionId, cached);
    if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    return cached.slice(0, throughSeq + 1);
  }
}
