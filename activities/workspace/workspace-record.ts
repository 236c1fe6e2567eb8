import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BlobRef, WorkspaceChanged } from '../../schemas/generated/events';
import { absorbInto, gitMetaPrint, gitMetaRoots, type GitMetaPrint, type RepoDirs } from './git-meta';
import type { WorkspaceManifest } from './manifest';
import { shadowDir } from './shadow-repo';

export type WorkspaceChangedFields = Omit<WorkspaceChanged, 'type'>;

/**
 * The workspace's last recorded scan, whichever session ran it: what the next scan compares
 * against. Small (the manifest is a tree id and the over-cap list), so it is kept whole here.
 */
export interface Latest {
  manifest: BlobRef;
  state: WorkspaceManifest;
  /** The key of the scan that wrote this, and the event it returned, so a retry of that scan returns it again. */
  by: string;
  scan: number;
  event: WorkspaceChangedFields | null;
  /** Git's metadata as that scan left it, with Recur's own writes since taken in (git-meta.ts); absent: none yet. */
  gitMeta?: GitMetaPrint;
}

export type WorkspaceRecord = ReturnType<typeof createWorkspaceRecord>;

/**
 * Each workspace's scan record (`latest.json` in its shadow directory under `root`), and the one
 * lock in this process that scans and Recur's own git writes take for it, so a scan never sees a
 * write of Recur's half done and counts it as someone else's.
 */
export function createWorkspaceRecord(root: string) {
  const tails = new Map<string, Promise<unknown>>();
  /** Runs `fn` after every earlier call for the same shadow directory. */
  const one = <T>(dir: string, fn: () => Promise<T>): Promise<T> => {
    const run = (tails.get(dir) ?? Promise.resolve()).then(fn);
    const tail = run.catch(() => undefined);
    tails.set(dir, tail);
    void tail.then(() => tails.get(dir) === tail && tails.delete(dir));
    return run;
  };
  const read = (dir: string): Promise<Latest | null> => readFile(join(dir, 'latest.json'), 'utf8').then((t) => JSON.parse(t) as Latest, () => null);
  async function write(dir: string, latest: Latest): Promise<void> {
    const tmp = join(dir, `latest.json.${process.pid}`);
    await writeFile(tmp, JSON.stringify(latest));
    await rename(tmp, join(dir, 'latest.json'));
  }
  return {
    one,
    read,
    write,
    /**
     * A git write of Recur's in or beside `workspace` (git.commit, git.branch, a worktree added or
     * removed): what it changes under git's metadata goes into the baseline, so the next scan
     * reports only what others changed. `repo`: the enclosing repository, for a workspace below its top.
     */
    gitWrite<T>(workspace: string, change: () => Promise<T>, repo: RepoDirs | null = null): Promise<T> {
      const dir = shadowDir(root, workspace);
      return one(dir, async () => {
        const print = () => gitMetaPrint(workspace, gitMetaRoots(workspace, repo));
        const before = print();
        const result = await change();
        const after = print();
        const latest = await read(dir);
        if (latest?.gitMeta) await write(dir, { ...latest, gitMeta: absorbInto(latest.gitMeta, before, after) });
        return result;
      });
    },
  };
}
