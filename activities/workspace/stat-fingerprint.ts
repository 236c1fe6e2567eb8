/**
 * A workspace's stat fingerprint: a hash of every entry's path, inode, mode, size and times, so a
 * scan can tell that nothing changed since the last one without running git (a fork of the
 * worker, which costs a step more than a walk of a small workspace).
 *
 * Any change to an entry sets its ctime to the clock's now, which no program can set back. But a
 * filesystem's timestamps are coarse (a clock tick, or a second), so an entry changed in the same
 * tick as the walk could change again at the same size and keep every field ("racy git"). An entry
 * not older than the walk by `settleMs` is therefore hashed by what it holds as well: a file's
 * bytes, a link's target (a directory's entries are hashed as entries).
 */
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readdirSync, readlinkSync, type BigIntStats } from 'node:fs';
import { join } from 'node:path';

export interface FingerprintOptions {
  /** Files outside the workspace that change what git reports (exclude files, the shadow index): their identity is hashed too. */
  also: readonly string[];
  /** More entries than this and there is no fingerprint: walking would cost what git does. */
  maxEntries: number;
  /** An entry whose ctime is not this much older than the walk is hashed by its content too. */
  settleMs: number;
  /** Recent files larger than this in all and there is no fingerprint: reading them would cost what git does. */
  maxRecentBytes: number;
  /** The wall clock, epoch ms. */
  now?: () => number;
}

/** A fingerprint, or why a walk cannot stand in for git this time. */
export type Fingerprint = { print: string } | { print: null; why: 'entries' | 'recent-bytes' | 'unreadable' };

/** The fingerprint of `root` and `also`. `.git` entries are skipped, as git skips them. */
export function statFingerprint(root: string, o: FingerprintOptions): Fingerprint {
  const settledBefore = BigInt(Math.floor((o.now ?? Date.now)() - o.settleMs)) * 1_000_000n;
  const hash = createHash('sha256');
  let recentBytes = 0n;
  /** Hashes one entry; false when its bytes would take the recent ones over the limit. */
  const entry = (label: string, abs: string, st: BigIntStats | undefined): boolean => {
    if (!st) {
      hash.update(`${label}\0-\n`);
      return true;
    }
    hash.update(`${label}\0${st.dev}:${st.ino}:${st.mode}:${st.size}:${st.mtimeNs}:${st.ctimeNs}\n`);
    if (st.ctimeNs < settledBefore) return true;
    if (st.isSymbolicLink()) hash.update(`${readlinkSync(abs)}\n`);
    else if (st.isFile()) {
      recentBytes += st.size;
      if (recentBytes > BigInt(o.maxRecentBytes)) return false;
      hash.update(createHash('sha256').update(readFileSync(abs)).digest('hex')).update('\n');
    }
    return true;
  };
  try {
    for (const file of o.also) if (!entry(file, file, lstatSync(file, { bigint: true, throwIfNoEntry: false }))) return { print: null, why: 'recent-bytes' };
    let entries = 0;
    const dirs = [''];
    for (let rel = dirs.pop(); rel !== undefined; rel = dirs.pop()) {
      // Sorted: readdir's order is the filesystem's, and the hash must not depend on it.
      for (const name of readdirSync(join(root, rel)).sort()) {
        if (name === '.git') continue;
        if (++entries > o.maxEntries) return { print: null, why: 'entries' };
        const path = rel ? `${rel}/${name}` : name;
        const abs = join(root, path);
        // lstat: a link is an entry, never followed out of the workspace.
        const st = lstatSync(abs, { bigint: true });
        if (!entry(path, abs, st)) return { print: null, why: 'recent-bytes' };
        if (st.isDirectory()) dirs.push(path);
      }
    }
  } catch {
    // An entry removed mid-walk, or a directory the worker may not read: git decides.
    return { print: null, why: 'unreadable' };
  }
  return { print: hash.digest('hex') };
}
