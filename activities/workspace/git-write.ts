import { realpathSync } from 'node:fs';
import { ScopeError } from '../../errors';
import { driversOff, gitIn, gitOut, headCommit, repoTop } from './git';

/** What a git write the agent asked for did (logged as GitOperation). */
export interface GitWrite {
  op: 'commit' | 'branch';
  changed: boolean;
  branch: string | null;
  previous: string | null;
  commit: string | null;
  message: string | null;
  /** commit: the paths it changed against its parent, all of them. */
  files: string[];
}

/** The longest commit message the agent may write (GitOperation.message's limit). */
export const MAX_COMMIT_MESSAGE = 4_000;

/**
 * The git writes an agent may make to its workspace's repository, whose `.git` its sandbox mounts
 * read-only: run here, on the host, with hooks, fsmonitor, credential helpers (git.ts SAFE) and
 * every filter and merge driver (`driversOff`) off, so nothing the workspace names runs.
 */
export function createGitWrites() {
  /** The workspace, when it is a repository's top (or a worktree's), and the settings its git runs with. */
  async function repository(workspace: string, what: string): Promise<string[]> {
    const top = await repoTop(workspace);
    if (top === null || realpathSync(top) !== realpathSync(workspace)) {
      throw new ScopeError(`${what}: the workspace ${workspace} is ${top === null ? 'not in a git repository' : `inside ${top}, not the top of a repository`}`);
    }
    return driversOff(workspace);
  }
  const branchOf = async (dir: string, config: string[]) => {
    const r = await gitIn(dir, ['symbolic-ref', '--short', '-q', 'HEAD'], { config });
    return r.code === 0 ? r.stdout.trim() : null;
  };

  return {
    /** The workspace's changes (or `paths` of it) committed on the current branch, as `git add -A` and `git commit` would. */
    async commit(input: { workspace: string; sessionId: string; message: string; paths: string[] | null }): Promise<GitWrite> {
      const config = await repository(input.workspace, 'git.commit');
      const previous = await headCommit(input.workspace);
      const only = input.paths ?? ['.'];
      await gitOut(input.workspace, ['add', '-A', '--', ...only], { config });
      const staged = await gitIn(input.workspace, ['diff', '--cached', '--quiet', '--no-ext-diff', '--', ...only], { config });
      const branch = await branchOf(input.workspace, config);
      if (staged.code === 0) return { op: 'commit', changed: false, branch, previous, commit: previous, message: null, files: [] };
      // Named paths only: what else the index holds stays staged, as `git commit -- <paths>` leaves it.
      const pathspec = input.paths ? ['--', ...input.paths] : [];
      await gitOut(input.workspace, ['commit', '-q', '--no-verify', '-m', input.message, '--trailer', `Recur-Session: ${input.sessionId}`, ...pathspec], { config });
      const commit = await headCommit(input.workspace);
      const message = await gitOut(input.workspace, ['log', '-1', '--format=%B'], { config });
      const listed = await gitOut(input.workspace, ['diff-tree', '--no-commit-id', '--name-only', '-r', '--root', '--no-renames', 'HEAD'], { config });
      return { op: 'commit', changed: true, branch, previous, commit, message, files: listed.split('\n').filter(Boolean) };
    },

    /** A branch at HEAD, checked out when asked (`git checkout -b`); the working tree stays as it is. */
    async branch(input: { workspace: string; name: string; checkout: boolean }): Promise<GitWrite> {
      const config = await repository(input.workspace, 'git.branch');
      const valid = await gitIn(input.workspace, ['check-ref-format', '--branch', input.name], { config });
      if (valid.code !== 0) throw new ScopeError(`git.branch: ${JSON.stringify(input.name)} is not a valid branch name`);
      const previous = await headCommit(input.workspace);
      const before = await branchOf(input.workspace, config);
      if (before === input.name) return { op: 'branch', changed: false, branch: before, previous, commit: previous, message: null, files: [] };
      const made = input.checkout
        ? await gitIn(input.workspace, ['checkout', '-q', '-b', input.name], { config })
        : await gitIn(input.workspace, ['branch', input.name], { config });
      if (made.code !== 0) throw new ScopeError(`git.branch: ${made.stderr.trim() || `git exited ${made.code}`}`);
      return { op: 'branch', changed: true, branch: await branchOf(input.workspace, config), previous, commit: await headCommit(input.workspace), message: null, files: [] };
    },
  };
}
