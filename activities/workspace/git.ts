import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Git as the worker runs it on a workspace the agent could write: no hooks, no fsmonitor command,
 * no external diff or textconv (each diff says so), and no ownership check (the repository is
 * someone else's by design). Author and committer are fixed, so a snapshot never needs an identity.
 */
const SAFE = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'safe.directory=*', '-c', 'core.pager=cat'];
const IDENTITY = { GIT_AUTHOR_NAME: 'recur', GIT_AUTHOR_EMAIL: 'recur@localhost', GIT_COMMITTER_NAME: 'recur', GIT_COMMITTER_EMAIL: 'recur@localhost' };

export interface GitResult { code: number; stdout: string; stderr: string }

export function git(cwd: string, args: string[], opts: { env?: Record<string, string>; input?: string } = {}): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', [...SAFE, ...args], {
      cwd, env: { ...process.env, ...IDENTITY, GIT_TERMINAL_PROMPT: '0', ...opts.env }, maxBuffer: 256 * 2 ** 20, encoding: 'utf8',
    }, (err, stdout, stderr) => {
      if (err && typeof (err as { code?: unknown }).code !== 'number') return reject(err);
      resolve({ code: err ? (err as { code: number }).code : 0, stdout, stderr });
    });
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** stdout of a git command that must succeed; its stderr names the failure otherwise. */
export async function gitOut(cwd: string, args: string[], opts: Parameters<typeof git>[2] = {}): Promise<string> {
  const r = await git(cwd, args, opts);
  if (r.code !== 0) throw new Error(`git ${args[0]} failed in ${cwd}: ${r.stderr.trim() || r.stdout.trim()}`);
  return r.stdout.trim();
}

/** The top level of the repository `dir` is, or null when it is not the top of one. */
export async function repoTop(dir: string): Promise<string | null> {
  const r = await git(dir, ['rev-parse', '--show-toplevel']);
  return r.code === 0 ? r.stdout.trim() : null;
}

/**
 * A commit of `dir`'s working tree as it is (tracked and untracked files, what .gitignore leaves
 * out left out) on top of `parent`, through a scratch index: the user's index, HEAD and branches
 * are never touched; the commit is an unreferenced object.
 */
export async function snapshotCommit(dir: string, parent: string | null, message: string): Promise<string> {
  const scratch = mkdtempSync(join(tmpdir(), 'recur-index-'));
  try {
    const index = join(scratch, 'index');
    // Starting from the real index saves hashing every unchanged file again. Its mtime goes with it
    // (rounded down): git rehashes an entry not older than its index ("racy git"), and a copy made
    // later would let a same-size rewrite within that second pass as unchanged.
    const real = await gitOut(dir, ['rev-parse', '--path-format=absolute', '--git-path', 'index']);
    if (existsSync(real)) {
      copyFileSync(real, index);
      const { atime, mtime } = statSync(real);
      utimesSync(index, atime, mtime);
    }
    const env = { GIT_INDEX_FILE: index };
    await gitOut(dir, ['add', '-A', '--', '.'], { env });
    const tree = await gitOut(dir, ['write-tree'], { env });
    return await gitOut(dir, ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message]);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export async function headCommit(dir: string): Promise<string | null> {
  const r = await git(dir, ['rev-parse', '--verify', '-q', 'HEAD^{commit}']);
  return r.code === 0 ? r.stdout.trim() : null;
}
