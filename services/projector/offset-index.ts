import { randomUUID } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** For each partition, an offset at or before the first record of a session tree there. */
export type StartOffsets = ReadonlyMap<number, bigint>;

/**
 * Where each session tree starts in the topic, so a read of one tree skips everything logged
 * before it instead of scanning from offset 0. An entry is taken once, before the tree's first
 * record is written: the high watermark of every partition then. Offsets only grow and the
 * topic never expires or compacts, so no record of the tree lies before its entry; an entry
 * can only be too early, never too late. A partition an entry does not name (one added later)
 * is read from its start, and a tree without an entry is read whole.
 */
export interface OffsetIndex {
  lookup(rootId: string): StartOffsets | null;
  /** Records the tree's start unless it already has one (the first entry always stands). */
  mark(rootId: string, offsets: StartOffsets): void;
}

/** The root of the tree a session belongs to: child ids extend their root's id with `/<name>`. */
export const rootOf = (sessionId: string): string => sessionId.split('/')[0];

/** One small JSON file per tree under `dir`, written whole and linked into place so readers never see half of one. */
export function fileOffsetIndex(dir: string): OffsetIndex {
  const file = (rootId: string) => join(dir, `${encodeURIComponent(rootId)}.json`);
  return {
    lookup(rootId) {
      let text: string;
      try {
        text = readFileSync(file(rootId), 'utf8');
      } catch {
        return null;
      }
      return parseEntry(text);
    },
    mark(rootId, offsets) {
      mkdirSync(dir, { recursive: true });
      const tmp = join(dir, `.${randomUUID()}.tmp`);
      writeFileSync(tmp, JSON.stringify(Object.fromEntries([...offsets].map(([p, o]) => [p, o.toString()]))));
      try {
        linkSync(tmp, file(rootId));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      } finally {
        unlinkSync(tmp);
      }
    },
  };
}

/** An entry's offsets, or null for anything that is not one (a reader then scans the whole topic). */
export function parseEntry(text: string): StartOffsets | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const offsets = new Map<number, bigint>();
  for (const [p, o] of Object.entries(value)) {
    if (!/^\d+$/.test(p) || typeof o !== 'string' || !/^\d+$/.test(o)) return null;
    offsets.set(Number(p), BigInt(o));
  }
  return offsets;
}

/** Where a read of a partition starts: the entry's offset, or the partition's start when the entry has none. */
export function startOf(offsets: StartOffsets | null, partition: number): bigint {
  return offsets?.get(partition) ?? 0n;
}

/**
 * The entry, unless it names an offset past a partition's end: then it was taken on an earlier
 * incarnation of the topic (deleted and made again) and would skip records, so the reader scans
 * from offset 0 instead.
 */
export function usableEntry(entry: StartOffsets | null, ends: ReadonlyArray<{ partition: number; high: bigint }>): StartOffsets | null {
  if (!entry) return null;
  const high = new Map(ends.map((p) => [p.partition, p.high]));
  return [...entry].every(([p, offset]) => offset <= (high.get(p) ?? offset)) ? entry : null;
}
