import { TranscriptCache } from '../../activities/transcript-cache';
import { encodeEventBatch, ZERO_HASH, type StoredEvent } from '../../schemas';

const batch = (sessionId: string, fromSeq: number, prevHash: string, n: number) => encodeEventBatch({
  sessionId, rootId: sessionId, parentId: null, fromSeq, prevHash,
  events: Array.from({ length: n }, (_, i) => ({ ts: 1000 + fromSeq + i, event: { type: 'SessionCompleted' as const, answer: String(fromSeq + i) } })),
});

describe('transcript cache: a contiguous prefix of the log, refilled from the log on a gap', () => {
  it('serves a session it appended itself without reading the log', async () => {
    const reads: string[] = [];
    const cache = new TranscriptCache(async (id) => { reads.push(id); return []; });
    const a = batch('s', 0, ZERO_HASH, 2);
    cache.record(a.records);
    cache.record(batch('s', 2, a.headHash, 1).records);
    expect((await cache.load('s', 2)).map((e) => e.seq)).toEqual([0, 1, 2]);
    expect((await cache.load('s', 0)).map((e) => e.seq)).toEqual([0]);
    expect(reads).toEqual([]);
  });

  it('reads the log for a session it has not seen from the start (another worker, a restart)', async () => {
    const full = batch('s', 0, ZERO_HASH, 3).records;
    const cache = new TranscriptCache(async () => full);
    cache.record(full.slice(1));
    expect((await cache.load('s', 2)).length).toBe(3);
  });

  it('refuses a log with a gap and one that ends before the requested seq', async () => {
    const full = batch('s', 0, ZERO_HASH, 3).records;
    const gappy = new TranscriptCache(async () => [full[0], full[2]] as StoredEvent[]);
    await expect(gappy.load('s', 2)).rejects.toThrow(/expected seq 1, got 2/);
    const short = new TranscriptCache(async () => full.slice(0, 2));
    await expect(short.load('s', 2)).rejects.toMatchObject({ retryable: true });
  });
});
