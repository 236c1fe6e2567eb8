import { ZERO_HASH, decodeEvent, encodeEventBatch, type RecurEventInput } from '../../schemas';
import type { LogRecord } from '../../services/projector';
import type { StartOffsets } from '../../services/projector/offset-index';
import type { ScanStats } from '../../services/projector/scan-topic';
import { FollowerPosition } from '../../services/projector/read-ahead';
import { TreeCache } from '../../services/projector/tree-cache';
import { testLogKey } from '../helpers/test-log-key';

const key = testLogKey();
const started = (name: string): RecurEventInput => ({ type: 'SessionStarted', task: 't', name, model: 'scripted', depth: 0, maxDepth: 2, maxTurns: 5, cellTimeoutSeconds: 60 });
const note = (n: number): RecurEventInput => ({ type: 'SessionCompleted', answer: `answer ${n}` });

/** Records of session `id` from `fromSeq`, chained from `prevHash`. */
function session(id: string, fromSeq: number, prevHash: string, events: RecurEventInput[]) {
  const b = encodeEventBatch({
    sessionId: id, rootId: id.split('/')[0], parentId: id.includes('/') ? id.slice(0, id.lastIndexOf('/')) : null, fromSeq, prevHash,
    events: events.map((event, i) => ({ ts: 1_700_000_000_000 + fromSeq + i, event })),
  }, key.signer);
  return { values: b.values.map((value) => ({ key: id, value })), head: b.records[b.records.length - 1].hash };
}

/** A two-partition topic the cache scans through a stand-in for scanTopic that honours `from` and reports `to`. */
function fakeTopic() {
  let partitions: Array<Array<{ key: string; value: Buffer }>> = [[], []];
  const scans: Array<{ from: Record<number, string> | null; records: number }> = [];
  let fail = false;
  const scan = async (from: StartOffsets | null, onRecord: (r: LogRecord) => void): Promise<ScanStats> => {
    await new Promise((resolve) => setImmediate(resolve));
    const stats: ScanStats = { from: {}, to: {}, records: 0 };
    partitions.forEach((records, p) => {
      const start = Number(from?.get(p) ?? 0n);
      stats.from[p] = String(start);
      stats.to[p] = String(records.length);
      for (let o = start; o < records.length; o++) {
        if (fail) throw new Error('broker went away');
        stats.records++;
        onRecord({ partition: p, offset: String(o), key: Buffer.from(records[o].key), value: records[o].value });
      }
    });
    scans.push({ from: from && Object.fromEntries([...from].map(([p, o]) => [p, o.toString()])), records: stats.records });
    return stats;
  };
  const ends = async () => new Map(partitions.map((records, p) => [p, BigInt(records.length)]));
  /** A follower of the whole topic: `pump(p)` hands over partition p's records it has not yet, then ends the batch. */
  const follower = (ahead: ReturnType<TreeCache['follow']>, decode = decodeEvent) => {
    const at = [0, 0];
    return {
      pump(p: number, from = at[p]) {
        const records = partitions[p];
        for (let o = from; o < records.length; o++) ahead.offer({ partition: p, offset: String(o), key: Buffer.from(records[o].key), value: records[o].value }, decode);
        at[p] = records.length;
        ahead.batchEnd(p, BigInt(records.length));
      },
    };
  };
  return {
    scan, scans, ends, follower,
    append: (p: number, rs: Array<{ key: string; value: Buffer }>) => partitions[p].push(...rs),
    recreate: () => { partitions = [[], []]; },
    failNext: (on: boolean) => { fail = on; },
  };
}

const ids = (events: ReadonlyArray<{ eventId: string }>) => events.map((e) => e.eventId);

describe('the daemon\'s tree cache (services/projector/tree-cache.ts)', () => {
  const root = session('r', 0, ZERO_HASH, [started('root'), note(1)]);
  const child = session('r/a', 0, ZERO_HASH, [started('a')]);
  const harness = session('harness:r', 0, ZERO_HASH, [note(2)]);
  const other = session('q', 0, ZERO_HASH, [started('q')]);

  function setup(maxBytes = 1 << 20) {
    const topic = fakeTopic();
    topic.append(0, [...other.values, ...root.values]);
    topic.append(1, [...child.values, ...harness.values]);
    const cache = new TreeCache({ scan: topic.scan, ends: topic.ends, start: (r) => (r === 'r' ? new Map([[0, 1n]]) : null), maxBytes });
    return { topic, cache };
  }

  it('reads a tree first from its index entry, then only what was logged since, holding what a whole read would', async () => {
    const { topic, cache } = setup();
    const first = await cache.read('r');
    expect(ids(first.tree.events)).toEqual(['r/0', 'r/1', 'r/a/0']);
    expect(ids(first.harness.events)).toEqual(['harness:r/0']);
    expect(topic.scans[0]).toEqual({ from: { 0: '1' }, records: 4 });

    expect(await cache.read('r')).toBe(first); // nothing new: the same view, so its causal order is reused
    expect(topic.scans[1]).toEqual({ from: { 0: '3', 1: '2' }, records: 0 });

    topic.append(1, session('r/a', 1, child.head, [note(3)]).values);
    const later = await cache.read('r');
    expect(topic.scans[2]).toEqual({ from: { 0: '3', 1: '2' }, records: 1 });
    const whole = await setup().cache.read('r');
    expect(ids(later.tree.events)).toEqual([...ids(whole.tree.events), 'r/a/1'].sort());
    expect(later.tree.duplicates).toBe(0);
  });

  it('reads of one tree wait for each other: two at once make one scan after the other', async () => {
    const { topic, cache } = setup();
    const [a, b] = await Promise.all([cache.read('r'), cache.read('r/a')]);
    expect(ids(a.tree.events)).toEqual(['r/0', 'r/1', 'r/a/0']);
    expect(ids(b.tree.events)).toEqual(['r/a/0']); // a child's read is its subtree, with the root's harness log
    expect(ids(b.harness.events)).toEqual(['harness:r/0']);
    expect(topic.scans.map((s) => s.from)).toEqual([{ 0: '1' }, { 0: '3', 1: '2' }]);
  });

  it('keeps record bytes within its budget, dropping the least recently read tree first', async () => {
    const { topic, cache } = setup(root.values[0].value.length * 4);
    await cache.read('r');
    await cache.read('q');
    expect(cache.stats().trees).toBe(1);
    await cache.read('r');
    expect(topic.scans.at(-1)!.from).toEqual({ 0: '1' }); // read again from its entry
    const none = setup(0);
    await none.cache.read('r');
    expect(none.cache.stats()).toEqual({ trees: 0, bytes: 0 });
  });

  it('reads a tree afresh when the topic was made again (a high watermark went back)', async () => {
    const { topic, cache } = setup();
    await cache.read('r');
    topic.recreate();
    topic.append(0, [...other.values, ...session('r', 0, ZERO_HASH, [started('again')]).values]);
    const again = await cache.read('r');
    expect(ids(again.tree.events)).toEqual(['r/0']);
    expect(again.tree.events[0].event).toMatchObject({ name: 'again' });
  });

  it('a failed read leaves nothing half-read behind: the next one starts over and counts no duplicates', async () => {
    const { topic, cache } = setup();
    topic.failNext(true);
    await expect(cache.read('r')).rejects.toThrow('broker went away');
    topic.failNext(false);
    const view = await cache.read('r');
    expect(ids(view.tree.events)).toEqual(['r/0', 'r/1', 'r/a/0']);
    expect(view.tree.duplicates).toBe(0);
    expect(topic.scans.at(-1)!.from).toEqual({ 0: '1' });
  });

  describe('read-ahead from a follower of the whole topic', () => {
    const settled = async (p: Promise<unknown>) => {
      let done = false;
      void p.then(() => (done = true), () => (done = true));
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      return done;
    };

    it('holds every tree whose start it hands over: a read scans nothing, holds what a scan would, and decodes nothing again', async () => {
      const { topic, cache } = setup();
      let decoded = 0;
      const follower = topic.follower(cache.follow(), (value) => (decoded++, decodeEvent(value)));
      follower.pump(0);
      follower.pump(1);
      const view = await cache.read('r');
      expect(topic.scans).toEqual([]);
      const scanned = await setup().cache.read('r');
      expect(ids(view.tree.events)).toEqual(ids(scanned.tree.events));
      expect(ids(view.harness.events)).toEqual(ids(scanned.harness.events));
      expect(ids((await cache.read('q')).tree.events)).toEqual(['q/0']);
      expect(decoded).toBe(5); // each record once, through the follower's own decoding
      expect(cache.stats().trees).toBe(2);
    });

    it('a read waits until the follower has passed the topic\'s end as of the read, then holds what was written up to it', async () => {
      const { topic, cache } = setup();
      const follower = topic.follower(cache.follow());
      follower.pump(0);
      const read = cache.read('r');
      expect(await settled(read)).toBe(false); // partition 1 not handed over yet
      follower.pump(1);
      expect(ids((await read).tree.events)).toEqual(['r/0', 'r/1', 'r/a/0']);
      topic.append(0, session('r', 2, root.head, [note(4)]).values);
      const later = cache.read('r');
      expect(await settled(later)).toBe(false);
      follower.pump(0);
      expect(ids((await later).tree.events)).toEqual(['r/0', 'r/1', 'r/2', 'r/a/0']);
      expect(topic.scans).toEqual([]);
    });

    it('leaves to scans a tree it first sees while scans hold it, and one dropped for the budget: it would miss their start', async () => {
      const { topic, cache } = setup();
      await cache.read('r');
      const follower = topic.follower(cache.follow());
      follower.pump(0);
      follower.pump(1);
      topic.append(1, session('r/a', 1, child.head, [note(3)]).values);
      follower.pump(1);
      const view = await cache.read('r');
      expect(topic.scans.map((s) => s.records)).toEqual([4, 1]); // the scans' own continuation, not the follower
      expect(ids(view.tree.events)).toEqual(['r/0', 'r/1', 'r/a/0', 'r/a/1']);
      expect(view.tree.duplicates).toBe(0);

      const small = setup(root.values[0].value.length * 2);
      const ahead = small.topic.follower(small.cache.follow());
      ahead.pump(0); // q, then r, which pushes q out
      ahead.pump(1); // r/a and harness:r push r out too
      expect(small.cache.stats().trees).toBe(0);
      small.topic.append(0, session('r', 2, root.head, [note(4)]).values);
      ahead.pump(0);
      expect(small.cache.stats().trees).toBe(0); // not started again from a later record
      expect(ids((await small.cache.read('r')).tree.events)).toEqual(['r/0', 'r/1', 'r/2', 'r/a/0']);
      expect(small.topic.scans).toHaveLength(1);
    });

    it('when the follower stops, scans read the trees it fed on from where it got to, even a read waiting on it', async () => {
      const { topic, cache } = setup();
      const ahead = cache.follow();
      const follower = topic.follower(ahead);
      follower.pump(0);
      follower.pump(1);
      topic.append(1, session('r/a', 1, child.head, [note(3)]).values);
      const read = cache.read('r');
      expect(await settled(read)).toBe(false);
      ahead.stop(new Error('consumer crashed'));
      const view = await read;
      expect(topic.scans).toEqual([{ from: { 0: '3', 1: '2' }, records: 1 }]);
      expect(ids(view.tree.events)).toEqual(['r/0', 'r/1', 'r/a/0', 'r/a/1']);
      expect(view.tree.duplicates).toBe(0);
    });

    it('records handed over again (a restarted consumer) add nothing, and a topic made again under it sends reads to scans', async () => {
      const { topic, cache } = setup();
      const follower = topic.follower(cache.follow());
      follower.pump(0);
      follower.pump(1);
      follower.pump(0, 0);
      follower.pump(1, 0);
      const view = await cache.read('r');
      expect(ids(view.tree.events)).toEqual(['r/0', 'r/1', 'r/a/0']);
      expect(view.tree.duplicates).toBe(0);

      topic.recreate();
      topic.append(0, [...other.values, ...session('r', 0, ZERO_HASH, [started('again')]).values]);
      const again = await cache.read('r');
      expect(ids(again.tree.events)).toEqual(['r/0']);
      expect(again.tree.events[0].event).toMatchObject({ name: 'again' });
      expect(topic.scans).toHaveLength(1);
    });

    it('a read the follower never gets far enough for gives up with a retryable error naming the partitions behind', async () => {
      const position = new FollowerPosition(20);
      position.advance(0, 5n);
      const err = await position.reached(new Map([[0, 7n], [1, 0n]])).catch((e: unknown) => e);
      expect(err).toMatchObject({ retryable: true, message: expect.stringContaining('partitions behind: 0 (at 5 of 7)') });
    });
  });
});
