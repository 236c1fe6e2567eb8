import { HARNESS_PREFIX, isInSessionTree, type StoredEvent } from '../../schemas';
import { EventCollector, type LogReadResult, type LogRecord } from '../../log/event-collector';
import { rootOf, type StartOffsets } from './offset-index';
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
  /** Record bytes the cache keeps over all trees; the least recently read trees go first. */
  maxBytes: number;
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
}

/**
 * The daemon's read model of the trees the viewer opens. A tree's first read scans the topic
 * from its offset-index entry; later reads continue from the high watermarks the last one
 * ended at, so reopening a 100,000-event tree reads only what was logged since. The topic is
 * append-only and never compacted, so a continued read holds exactly what a full one would;
 * a partition whose high watermark went backwards (the topic was deleted and made again)
 * drops the tree and reads it afresh.
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
      root, next: null, bytes: 0, view: null, queue: Promise.resolve(),
      // The harness log of a tree is written only by the tree's sessions, so none of its records lies before the tree's entry.
      tree: new EventCollector({ sessionId: root, descendants: true }),
      harness: new EventCollector({ sessionId: HARNESS_PREFIX + root, descendants: false }),
    };
    this.entries.set(root, entry);
    return entry;
  }

  private async refresh(entry: Entry): Promise<TreeView> {
    let added = 0;
    let stats: ScanStats;
    try {
      stats = await this.opts.scan(entry.next ?? this.opts.start(entry.root), (record) => {
        // Each collector skips other keys before decoding.
        const kinds = [entry.tree.accept(record).kind, entry.harness.accept(record).kind];
        if (kinds.some((k) => k !== 'skipped')) entry.view = null;
        if (kinds.some((k) => k === 'event' || k === 'conflict')) added += record.value?.length ?? 0;
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
    entry.view ??= { tree: entry.tree.result(), harness: entry.harness.result() };
    // Evicted while it read (other trees' reads filled the budget): the answer stands, the tree is not kept.
    if (this.entries.get(entry.root) !== entry) return entry.view;
    entry.bytes += added;
    this.bytes += added;
    this.keep(entry);
    return entry.view;
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
