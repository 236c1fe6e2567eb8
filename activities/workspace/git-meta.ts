/**
 * Git's own metadata beside a workspace: what git runs or reads later, outside any sandbox (hooks,
 * config, attributes, refs, a worktree's pointer file). The sandbox mounts it read-only, so a change
 * there is someone else's: a person, a process beside Recur, or an agent run with the sandbox off.
 * Each scan compares it with the scan before and logs what changed as `git-meta` entries; Recur's own
 * writes (git.commit, git.branch, a sub-agent's worktree) are taken into that baseline as they happen.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readdirSync, realpathSync, type BigIntStats } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { WorkspaceFileChange } from '../../schemas/generated/events';
import { fileChange } from './manifest';

/** Path as logged (relative to the workspace when inside it, else absolute) to the entry's stat signature. */
export type GitMetaPrint = Record<string, string>;

/** The enclosing repository's git directories, for a workspace below a repository's top. */
export interface RepoDirs { gitDir: string; commonDir: string }

/** A file git reads a path from: `gitdir: X` (a worktree's or submodule's `.git`), or `commondir`. */
function pointed(file: string, pattern: RegExp): string | null {
  try {
    const m = pattern.exec(readFileSync(file, 'utf8').slice(0, 4096));
    return m ? resolve(dirname(file), m[1]!.trim()) : null;
  } catch {
    return null;
  }
}

/**
 * The roots to watch: the workspace's `.git` (a directory; or a pointer file, the directory it names
 * and that one's repository), else the enclosing repository's git directories.
 */
export function gitMetaRoots(workspace: string, repo: RepoDirs | null): string[] {
  const dot = join(workspace, '.git');
  const st = lstatSync(dot, { throwIfNoEntry: false });
  if (!st) return repo ? [...new Set([repo.gitDir, repo.commonDir])] : [];
  if (!st.isFile()) return [dot];
  const gitdir = pointed(dot, /^gitdir: *(.+)/);
  const common = gitdir ? pointed(join(gitdir, 'commondir'), /^(.+)/) : null;
  return [...new Set([dot, ...(gitdir ? [gitdir] : []), ...(common ? [common] : [])])];
}

/**
 * What a write changes: the inode (a file replaced), the owner's and others' mode bits (a hook made
 * executable), the size and the modification time. Not the change time or the group bits: the
 * sandbox's ACL walk, which opens the workspace to a kernel's group, sets both on every file. A
 * writer that puts the modification time back on a same-size rewrite is not seen; with the sandbox
 * on, no agent can write here at all.
 */
const signature = (st: BigIntStats): string => `${st.ino}:${st.mode & ~0o070n}:${st.size}:${st.mtimeNs}`;

/**
 * Every file and link under the roots, by lstat (a link is an entry, never followed; a directory
 * counts by what it holds). Two things are left out: `objects/`, but for `objects/info/`
 * (alternates), since objects are content-addressed, written by every commit and never run, and
 * walking them would cost a scan what the repository's size does; and the index, a cache of the
 * working tree that any `git status` rewrites, which the workspace's own scan already covers.
 */
export function gitMetaPrint(workspace: string, roots: readonly string[]): GitMetaPrint {
  const print: GitMetaPrint = {};
  const ws = realpathOr(workspace);
  const label = (abs: string) => {
    const rel = relative(ws, abs);
    return rel && !rel.startsWith('..') && !rel.startsWith(sep) ? rel.split(sep).join('/') : abs;
  };
  const walk = (abs: string, top: string): void => {
    const st = lstatSync(abs, { bigint: true, throwIfNoEntry: false });
    if (!st) return;
    if (!st.isDirectory()) {
      print[label(abs)] = signature(st);
      return;
    }
    let names: string[];
    try {
      names = readdirSync(abs);
    } catch {
      return;
    }
    for (const name of names) {
      const child = join(abs, name);
      const rel = relative(top, child).split(sep).join('/');
      if (rel === 'index' || (rel.startsWith('objects/') && rel !== 'objects/info' && !rel.startsWith('objects/info/'))) continue;
      walk(child, top);
    }
  };
  for (const root of roots) walk(root, root);
  return print;
}

function realpathOr(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** git's blob id of a small regular file as it is now; null for anything else. */
function blobId(abs: string, maxBytes: number): { hash: string | null; size: number | null } {
  const st = lstatSync(abs, { throwIfNoEntry: false });
  if (!st?.isFile()) return { hash: null, size: st ? st.size : null };
  if (st.size > maxBytes) return { hash: null, size: st.size };
  try {
    const bytes = readFileSync(abs);
    return { hash: createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex'), size: bytes.length };
  } catch {
    return { hash: null, size: st.size };
  }
}

/** What changed between two prints, as `git-meta` entries in path order; `workspace` resolves relative labels. */
export function gitMetaChanges(before: GitMetaPrint, after: GitMetaPrint, workspace: string, maxBytes: number): WorkspaceFileChange[] {
  const out: WorkspaceFileChange[] = [];
  const abs = (path: string) => (path.startsWith('/') ? path : join(workspace, path));
  for (const path of Object.keys(after).sort()) {
    if (before[path] === after[path]) continue;
    const { hash, size } = blobId(abs(path), maxBytes);
    out.push(fileChange(path, path in before ? 'modified' : 'added', { kind: 'git-meta', newHash: hash, size }));
  }
  for (const path of Object.keys(before).sort()) if (!(path in after)) out.push(fileChange(path, 'deleted', { kind: 'git-meta' }));
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** `base` with what changed between `before` and `after` taken in: the changes a write of Recur's made. */
export function absorbInto(base: GitMetaPrint, before: GitMetaPrint, after: GitMetaPrint): GitMetaPrint {
  const next = { ...base };
  for (const [path, sig] of Object.entries(after)) if (before[path] !== sig) next[path] = sig;
  for (const path of Object.keys(before)) if (!(path in after)) delete next[path];
  return next;
}
