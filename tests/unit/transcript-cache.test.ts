import { TranscriptCache, eventBytes } from '../../activities/transcript-cache';
import { encodeEventBatch, ZERO_HASH, type StoredEvent } from '../../schemas';

const batch = (sessionId: string, fromSeq: number, prevHash: string, n: number) => encodeEventBatch({
  sessionId, rootId: sessionId, parentId: null, fromSeq, prevHash,
  events: Array.from({ length: n }, (_, i) => ({ ts: 1000 + fromSeq + i, event: { type: 'SessionCompleted' as const, answer: String(fromSeq + i) } })),
});

const MIB = 2 ** 20;

describe('transcript cache: a contiguous prefix of the log, refilled from the log on a gap', () => {
  it('serves a session it appended itself without reading the log', async () => {
    const reads: string[] = [];
    const cache = new TranscriptCache(async (id) => { reads.push(id); return []; }, MIB);
    const a = batch('s', 0, ZERO_HASH, 2);
    cache.record(a.records);
    cache.record(batch('s', 2, a.headHash, 1).records);
    expect((await cache.load('s', 2)).map((e) => e.seq)).toEqual([0, 1, 2]);
    expect((await cache.load('s', 0)).map((e) => e.seq)).toEqual([0]);
    expect(reads).toEqual([]);
  });

  it('reads the log for a session it has not seen from the start (another worker, a restart)', async () => {
    const full = batch('s', 0, ZERO_HASH, 3).records;
    const cache = new TranscriptCache(async () => full, MIB);
    cache.record(full.slice(1));
    expect((await cache.load('s', 2)).length).toBe(3);
  });

  it('refuses a log with a gap and one that ends before the requested seq', async () => {
    const full = batch('s', 0, ZERO_HASH, 3).records;
    const gappy = new TranscriptCache(async () => [full[0], full[2]] as StoredEvent[], MIB);
    await expect(gappy.load('s', 2)).rejects.toThrow(/expected seq 1, got 2/);
    const short = new TranscriptCache(async () => full.slice(0, 2), MIB);
    await expect(short.load('s', 2)).rejects.toMatchObject({ retryable: true });
  });

  describe('bounded in bytes, least recently used sessions dropped first', () => {
    const logs = new Map(['a', 'b', 'c'].map((id) => [id, batch(id, 0, ZERO_HASH, 4).records]));
    const sessionBytes = logs.get('a')!.reduce((n, e) => n + eventBytes(e), 0);
    const reads: string[] = [];
    const readLog = async (id: string) => { reads.push(id); return logs.get(id)!; };
    beforeEach(() => { reads.length = 0; });

    it('keeps what fits, drops the least recently used session, and reads it again on demand', async () => {
      const cache = new TranscriptCache(readLog, 2 * sessionBytes);
      for (const id of ['a', 'b']) cache.record(logs.get(id)!);
      expect(cache.bytes).toBe(2 * sessionBytes);
      await cache.load('a', 3); // a is now the most recently used, b the least
      cache.record(logs.get('c')!);
      expect(cache.bytes).toBe(2 * sessionBytes);
      await cache.load('a', 3);
      await cache.load('c', 3);
      expect(reads).toEqual([]);
      expect((await cache.load('b', 3)).map((e) => e.seq)).toEqual([0, 1, 2, 3]);
      expect(reads).toEqual(['b']);
      expect(cache.bytes).toBeLessThanOrEqual(2 * sessionBytes);
    });

    it('never holds more than its budget, even for one session larger than all of it', async () => {
      const cache = new TranscriptCache(readLog, sessionBytes - 1);
      cache.record(logs.get('a')!);
      expect(cache.bytes).toBeLessThan(sessionBytes);
      expect((await cache.load('b', 3)).length).toBe(4);
      expect(cache.bytes).toBe(0);
      await cache.load('b', 3);
      expect(reads).toEqual(['b', 'b']);
    });

    it('counts appends to a cached session against the budget', () => {
      const cache = new TranscriptCache(readLog, MIB);
      const first = batch('a', 0, ZERO_HASH, 2);
      cache.record(first.records);
      const before = cache.bytes;
      const next = batch('a', 2, first.headHash, 1).records;
      cache.record(next);
      expect(cache.bytes).toBe(before + eventBytes(next[0]));
    });
  });
});
