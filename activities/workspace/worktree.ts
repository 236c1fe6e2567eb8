import { existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RecurError } from '../../errors';
import type { WorkspaceBinding } from './binding';
import { driversOff, gitIn, gitOut, headCommit, repoTop, snapshotCommit } from './git';

function readIfThere(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

export interface WorkspaceBook {
  of(sessionId: string): WorkspaceBinding;
  own(sessionId: string): WorkspaceBinding | null;
  record(sessionId: string, binding: WorkspaceBinding): void;
}

/** What `h.merge()` did; conflicts change nothing. */
export type MergeOutcome =
  | { status: 'merged' | 'unchanged'; files: string[]; base: string; result: string }
  | { status: 'conflict'; files: string[]; base: string; result: null };

export type Worktrees = ReturnType<typeof createWorktrees>;

/**
 * Sub-agents' own git worktrees (docs/workspace.md). `dirFor(rootId, childId)` is where a child's
 * worktree goes: under the home, grouped by tree, so the tree's end removes them all.
 */
export function createWorktrees(book: WorkspaceBook, dirFor: (rootId: string, childId: string) => string, treeDir: (rootId: string) => string) {
  return {
    /**
     * A worktree for `childId` of its parent's workspace as it is now (uncommitted and new files
     * included), detached at a snapshot commit, so no branch of the user's is made or moved.
     * Safe to repeat: a child that has one keeps it.
     */
    async prepare(input: { rootId: string; parentId: string; childId: string }): Promise<{ ok: true; workspace: string } | { ok: false; reason: string }> {
      const existing = book.own(input.childId);
      if (existing?.worktree) return { ok: true, workspace: existing.dir };
      const parent = book.of(input.parentId);
      const top = await repoTop(parent.dir);
      if (top === null || realpathSync(top) !== parent.dir) {
        return { ok: false, reason: `rlm(workspace="worktree") needs the workspace to be a git repository's top level; ${parent.dir} is ${top === null ? 'not in a git repository' : `inside ${top}`}` };
      }
      // The workspace's attributes are the agent's: no filter they name runs here (git.ts driversOff).
      const config = await driversOff(parent.dir);
      const base = await snapshotCommit(parent.dir, await headCommit(parent.dir), `recur: ${input.parentId} when ${input.childId} started`, config);
      const dir = dirFor(input.rootId, input.childId);
      mkdirSync(dirname(dir), { recursive: true, mode: 0o700 });
      // Left by an attempt that died before recording it.
      if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
      await gitOut(parent.dir, ['worktree', 'prune'], { config });
      await gitOut(parent.dir, ['worktree', 'add', '--detach', dir, base], { config });
      const common = await gitOut(parent.dir, ['rev-parse', '--path-format=absolute', '--git-common-dir']);
      const real = realpathSync(dir);
      book.record(input.childId, { dir: real, group: parent.group, shared: [realpathSync(common)], worktree: { parent: parent.dir, base } });
      return { ok: true, workspace: real };
    },

    /**
     * The child's net change since its base (or its last merge) applied to the parent's workspace as
     * it is now: a three-way merge of the two snapshots, then the parent's working tree moved to the
     * result in one `git apply`, which applies all or nothing. Conflicts are returned, never resolved.
     */
    async merge(childId: string): Promise<MergeOutcome> {
      const child = book.own(childId);
      if (!child?.worktree) throw new RecurError(`${childId} has no worktree of its own: only a child started with rlm(task, workspace="worktree") can be merged`);
      const { parent, base } = child.worktree;
      // Both trees' attributes are agents' to write: no filter or merge driver they name runs here.
      const config = await driversOff(parent);
      const theirs = await snapshotCommit(child.dir, base, `recur: ${childId}`, config);
      const ours = await snapshotCommit(parent, base, `recur: before merging ${childId}`, config);
      const merged = await gitIn(parent, ['merge-tree', '--write-tree', '--name-only', '--no-messages', ours, theirs], { config });
      const [tree, ...rest] = merged.stdout.trim().split('\n');
      if (merged.code === 1) return { status: 'conflict', files: [...new Set(rest.filter(Boolean))], base, result: null };
      if (merged.code !== 0) throw new RecurError(`git merge-tree failed in ${parent}: ${merged.stderr.trim()}`);
      const files = (await gitOut(parent, ['diff', '--no-ext-diff', '--no-textconv', '--name-only', '--no-renames', ours, tree], { config })).split('\n').filter(Boolean);
      if (files.length > 0) {
        const patch = await gitOut(parent, ['diff', '--no-ext-diff', '--no-textconv', '--binary', '--full-index', '--no-renames', ours, tree], { config });
        const applied = await gitIn(parent, ['apply', '--whitespace=nowarn', '-'], { input: `${patch}\n`, config });
        if (applied.code !== 0) throw new RecurError(`the parent's workspace changed while merging ${childId}; nothing was applied: ${applied.stderr.trim()}`, { retryable: false });
      }
      // The next merge brings only what the child changes after this one.
      book.record(childId, { ...child, worktree: { parent, base: theirs } });
      return { status: files.length ? 'merged' : 'unchanged', files, base, result: tree };
    },

    /** The tree's worktrees go with its root: removed, and pruned from their repositories. */
    async removeTree(rootId: string): Promise<void> {
      const dir = treeDir(rootId);
      if (!existsSync(dir)) return;
      // Each worktree's `.git` file names its admin directory inside the repository's git dir.
      const repos = new Set<string>();
      for (const name of readdirSync(dir)) {
        const link = /^gitdir: (.+)$/m.exec(readIfThere(join(dir, name, '.git')));
        if (link) repos.add(dirname(dirname(link[1].trim())));
      }
      rmSync(dir, { recursive: true, force: true });
      for (const repo of repos) await gitIn(repo, ['--git-dir', repo, 'worktree', 'prune']);
    },
  };
}
