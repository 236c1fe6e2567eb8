import { decodeEvent, HARNESS_PREFIX, isInSessionTree, type StoredEvent } from '../../schemas';
import { EventCollector, type LogReadResult, type LogRecord } from '../../log/event-collector';
import { rootOf, type StartOffsets } from './offset-index';
import { FollowerPosition } from './read-ahead';
import type { ScanStats } from './scan-topic';

/** A session tree and its root's harness log, as the topic holds them. */
export interface TreeView {
  tree: LogReadResult;
  /** The events of `harness:<root>` (the tree's harness edits), by seq. */
  harness: LogReadResult;
}

/** Reads the topic from `from` (each partition's start where it names none) up to now; scanTopic bound to a topic. */
export type TreeScan = (from: StartOffsets | null, onRecord: (record: LogRecord) => void) => Promise<ScanStats>;

export interface TreeCacheOptions {
  scan: TreeScan;
  /** Where a tree starts in the topic (its offset-index entry), for the first read of it. */
  start: (rootId: string) => StartOffsets | null;
  /** Each partition's high watermark now: a read of a tree the read-ahead feeds waits for the follower to get there. */
  ends: () => Promise<StartOffsets>;
  /** Record bytes the cache keeps over all trees; the least recently read or written trees go first. */
  maxBytes: number;
}

/**
 * What a follower of the whole topic hands the cache to read trees ahead: every record from
 * offset 0 of each partition, each partition in offset order (see `TreeCache.follow`).
 */
export interface ReadAhead {
  /** A record as the follower hands it over; `decode` is the follower's own decoding of it, so no record is decoded twice. */
  offer(record: LogRecord, decode: (value: Buffer) => StoredEvent): void;
  /** Every record of `partition` below `next` has been handed over. */
  batchEnd(partition: number, next: bigint): void;
  /** The follower stopped: the trees it fed are read on by scans from where it got to. */
  stop(reason: Error): void;
}

/** One follower's feed: where it got to and the roots it has handed over a record of. */
interface Feed {
  position: FollowerPosition;
  seen: Set<string>;
}

interface Entry {
  root: string;
  tree: EventCollector;
  harness: EventCollector;
  /** Where the next read of each partition continues: the high watermarks of the last one. */
  next: StartOffsets | null;
  bytes: number;
  /** The view as of `next`, until a read hands over a record of this tree. */
  view: TreeView | null;
  /** Reads of one tree run one after another, so each continues where the last ended. */
  queue: Promise<unknown>;
  /** The follower that holds this tree up to date, from its first record on; null for a tree read by scans. */
  feed: Feed | null;
}

/**
 * The daemon's read model of the trees the viewer opens. A tree's first read scans the topic
 * from its offset-index entry; later reads continue from the high watermarks the last one
 * ended at, so reopening a 100,000-event tree reads only what was logged since. The topic is
 * append-only and never compacted, so a continued read holds exactly what a full one would;
 * a partition whose high watermark went backwards (the topic was deleted and made again)
 * drops the tree and reads it afresh.
 *
 * With a follower of the whole topic (the daemon's catalog), the cache also reads trees ahead:
 * each tree whose first record the follower hands over is kept from then on, so a tree written
 * or read since the follower started opens without a read of Kafka.
 */
export class TreeCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly opts: TreeCacheOptions) {}

  /** The tree under `sessionId` and its root's harness log, as the topic holds them now. */
  async read(sessionId: string): Promise<TreeView> {
    const root = rootOf(sessionId);
    const entry = this.entries.get(root) ?? this.add(root);
    const read = entry.queue.then(() => this.refresh(entry));
    entry.queue = read.catch(() => undefined);
    const view = await read;
    return sessionId === root ? view : { tree: subtree(view.tree, sessionId), harness: view.harness };
  }

  /** Trees held and the record bytes they count against the budget. */
  stats(): { trees: number; bytes: number } {
    return { trees: this.entries.size, bytes: this.bytes };
  }

  /** A tree not read yet: in the map at once, so a second request waits for the first read instead of making its own. */
  private add(root: string): Entry {
    const entry: Entry = {
      root, next: null, bytes: 0, view: null, queue: Promise.resolve(), feed: null,
      // The harness log of a tree is written only by the tree's sessions, so none of its records lies before the tree's entry.
      tree: new EventCollector({ sessionId: root, descendants: true }),
      harness: new EventCollector({ sessionId: HARNESS_PREFIX + root, descendants: false }),
    };
    this.entries.set(root, entry);
    return entry;
  }

  /**
   * Feeds the cache from a follower of the whole topic. The follower hands over every record
   * from offset 0, so the first record of a root it hands over is the tree's first: a tree not
   * held then is kept from there on, complete. A tree it saw before and is not held (dropped
   * for the budget, or read by scans) it leaves to scans, which would otherwise miss its start.
   */
  follow(): ReadAhead {
    const feed: Feed = { position: new FollowerPosition(), seen: new Set() };
    return {
      offer: (record, decode) => {
        const offset = BigInt(record.offset);
        if (!feed.position.isNew(record.partition, offset)) return;
        feed.position.advance(record.partition, offset + 1n);
        if (this.opts.maxBytes > 0) this.feedRecord(feed, record, decode);
      },
      batchEnd: (partition, next) => {
        feed.position.advance(partition, next);
        feed.position.wake();
      },
      stop: (reason) => {
        feed.position.stop(reason);
        for (const entry of this.entries.values()) {
          if (entry.feed !== feed) continue;
          entry.feed = null;
          entry.next = feed.position.offsets();
        }
      },
    };
  }

  private feedRecord(feed: Feed, record: LogRecord, decode: (value: Buffer) => StoredEvent): void {
    if (record.key === null) {
      // Whose it is shows only once decoded; a scan hands it to every tree it reads too.
      for (const entry of this.entries.values()) if (entry.feed === feed) this.hold(entry, this.take(entry, record, decode));
      return;
    }
    const root = treeOf(record.key.toString('utf8'));
    const first = !feed.seen.has(root);
    feed.seen.add(root);
    let entry = this.entries.get(root);
    if (!entry && first) {
      entry = this.add(root);
      entry.feed = feed;
    }
    if (entry?.feed !== feed) return;
    this.hold(entry, this.take(entry, record, decode));
    this.keep(entry);
  }

  private async refresh(entry: Entry): Promise<TreeView> {
    const feed = entry.feed;
    if (feed) {
      const ends = await this.opts.ends();
      if (feed.position.beyond(ends)) {
        // The topic was made again under the follower: what it fed belongs to the old one.
        this.drop(entry);
        return this.read(entry.root);
      }
      try {
        await feed.position.reached(ends);
      } catch (err) {
        if (entry.feed === feed) throw err;
      }
      if (this.entries.get(entry.root) !== entry) return this.read(entry.root);
      if (entry.feed === feed) {
        this.keep(entry);
        return viewOf(entry);
      }
      // The follower stopped while this read waited: scans read on from where it got to.
    }
    let added = 0;
    let stats: ScanStats;
    try {
      stats = await this.opts.scan(entry.next ?? this.opts.start(entry.root), (record) => {
        added += this.take(entry, record, decodeEvent);
      });
    } catch (err) {
      // Records handed over before the failure would come again on the next read and count as duplicates.
      this.drop(entry);
      throw err;
    }
    if (entry.next && [...entry.next].some(([p, offset]) => BigInt(stats.to[p] ?? '0') < offset)) {
      this.drop(entry);
      return this.read(entry.root);
    }
    entry.next = new Map(Object.entries(stats.to).map(([p, o]) => [Number(p), BigInt(o)]));
    const view = viewOf(entry);
    // Evicted while it read (other trees' reads filled the budget): the answer stands, the tree is not kept.
    if (this.entries.get(entry.root) !== entry) return view;
    this.hold(entry, added);
    this.keep(entry);
    return view;
  }

  /** Hands `record` to the tree's collectors (each skips other keys before decoding); the bytes it adds to what the tree holds. */
  private take(entry: Entry, record: LogRecord, decode: (value: Buffer) => StoredEvent): number {
    const kinds = [entry.tree.accept(record, decode).kind, entry.harness.accept(record, decode).kind];
    if (kinds.every((k) => k === 'skipped')) return 0;
    entry.view = null;
    // A copy dropped as a duplicate adds a count, not a record.
    return kinds.includes('duplicate') ? 0 : (record.key?.length ?? 0) + (record.value?.length ?? 0);
  }

  private hold(entry: Entry, bytes: number): void {
    entry.bytes += bytes;
    this.bytes += bytes;
  }

  /** Marks `entry` the most recently read and evicts the least recently read trees over the budget, `entry` last. */
  private keep(entry: Entry): void {
    this.entries.delete(entry.root);
    this.entries.set(entry.root, entry);
    for (const old of this.entries.values()) {
      if (this.bytes <= this.opts.maxBytes) break;
      this.drop(old);
    }
  }

  private drop(entry: Entry): void {
    if (this.entries.get(entry.root) !== entry) return;
    this.entries.delete(entry.root);
    this.bytes -= entry.bytes;
  }
}

/** The tree as its collectors hold it now: made once, then the same object until a record changes it (so its causal order is reused). */
function viewOf(entry: Entry): TreeView {
  return (entry.view ??= { tree: entry.tree.result(), harness: entry.harness.result() });
}

/** The tree a record key belongs to: a session's root, or the root whose harness log it is. */
function treeOf(key: string): string {
  return rootOf(key.startsWith(HARNESS_PREFIX) ? key.slice(HARNESS_PREFIX.length) : key);
}

/** The part of a tree's read under one of its sessions. */
function subtree(tree: LogReadResult, sessionId: string): LogReadResult {
  const inside = (id: string | null) => id !== null && isInSessionTree(id, sessionId);
  const sessions = new Map<string, readonly StoredEvent[]>([...tree.sessions].filter(([id]) => inside(id)));
  return {
    events: tree.events.filter((e) => inside(e.sessionId)),
    sessions,
    undecodable: tree.undecodable.filter((r) => inside(r.key)),
    conflicts: tree.conflicts.filter((c) => inside(c.other.sessionId)),
    duplicates: tree.duplicates,
  };
}
