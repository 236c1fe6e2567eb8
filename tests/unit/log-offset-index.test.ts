import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kafka } from 'kafkajs';
import { fileOffsetIndex, rootOf, treeStartMarker } from '../../services/projector';
import { parseEntry, startOf, usableEntry } from '../../services/projector/offset-index';

const dir = () => join(mkdtempSync(join(tmpdir(), 'recur-index-')), 'log-index', 'topic');

/** A Kafka whose admin answers fetchTopicOffsets with `highs` (partition → high watermark) and counts the calls. */
function fakeKafka(highs: number[] | Error) {
  const calls = { fetches: 0 };
  const admin = {
    connect: async () => undefined,
    disconnect: async () => undefined,
    listTopics: async () => ['topic'],
    fetchTopicOffsets: async () => {
      calls.fetches++;
      if (highs instanceof Error) throw highs;
      return highs.map((high, partition) => ({ partition, offset: String(high), high: String(high), low: '0' }));
    },
  };
  return { kafka: { admin: () => admin } as unknown as Kafka, calls };
}

describe('log offset index', () => {
  it('gives back what was marked, and nothing for a tree it never saw', () => {
    const index = fileOffsetIndex(dir());
    expect(index.lookup('r1')).toBeNull();
    index.mark('r1', new Map([[0, 12n], [1, 0n]]));
    expect(index.lookup('r1')).toEqual(new Map([[0, 12n], [1, 0n]]));
    expect(index.lookup('r2')).toBeNull();
  });

  it('keeps the first entry of a tree: a later, larger start would make readers miss its first records', () => {
    const at = dir();
    const index = fileOffsetIndex(at);
    index.mark('r1', new Map([[0, 5n]]));
    index.mark('r1', new Map([[0, 900n]]));
    expect(fileOffsetIndex(at).lookup('r1')).toEqual(new Map([[0, 5n]]));
    expect(readdirSync(at)).toEqual(['r1.json']); // no temporary files left behind
  });

  it('treats a damaged entry as none, so the reader scans the whole topic', () => {
    const at = dir();
    const index = fileOffsetIndex(at);
    index.mark('r1', new Map([[0, 5n]]));
    writeFileSync(join(at, 'r1.json'), '{"0": "5"');
    expect(index.lookup('r1')).toBeNull();
    for (const bad of ['[]', '{"0": 5}', '{"x": "5"}', '{"0": "-1"}', 'null']) expect(parseEntry(bad)).toBeNull();
  });

  it('reads a partition the entry does not name from its start, and any session through its root', () => {
    const entry = parseEntry('{"0": "40"}');
    expect(startOf(entry, 0)).toBe(40n);
    expect(startOf(entry, 3)).toBe(0n);
    expect(startOf(null, 0)).toBe(0n);
    expect(rootOf('r1/helper/deep_2')).toBe('r1');
    expect(rootOf('harness:global')).toBe('harness:global');
  });

  it('drops an entry past a partition\'s end (taken on an earlier incarnation of the topic), so nothing is skipped', () => {
    const entry = new Map([[0, 40n], [1, 3n]]);
    expect(usableEntry(entry, [{ partition: 0, high: 40n }, { partition: 1, high: 9n }])).toBe(entry);
    expect(usableEntry(entry, [{ partition: 0, high: 39n }, { partition: 1, high: 9n }])).toBeNull();
    expect(usableEntry(null, [])).toBeNull();
  });

  it('the writer marks a tree once, with every partition\'s high watermark before its first record', async () => {
    const index = fileOffsetIndex(dir());
    const { kafka, calls } = fakeKafka([7, 0, 31]);
    const mark = treeStartMarker(kafka, 'topic', index);
    await mark('r1');
    await mark('r1');
    expect(index.lookup('r1')).toEqual(new Map([[0, 7n], [1, 0n], [2, 31n]]));
    expect(calls.fetches).toBe(1);
  });

  it('a failing offsets call leaves the tree without an entry and does not fail the append', async () => {
    const index = fileOffsetIndex(dir());
    await expect(treeStartMarker(fakeKafka(new Error('broker down')).kafka, 'topic', index)('r1')).resolves.toBeUndefined();
    expect(index.lookup('r1')).toBeNull();
  });
});
