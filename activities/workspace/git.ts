import { spawn } from 'node:child_process';
import { RecurError } from '../../errors';

export interface GitOptions {
  /** GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE: the shadow repository's, never the user's. */
  env?: Record<string, string>;
  cwd?: string;
  input?: string;
  /** Exit codes that are answers, not failures (`git diff --quiet` style). */
  ok?: number[];
}

/**
 * Runs git and resolves to its stdout. Options before the subcommand keep git from taking its
 * settings from where it happens to run: no pager, no optional locks on the user's index,
 * `safe.directory=*` (the worker may not own the repository it reads), and no fsmonitor: the
 * workspace's `.git/config` is the agent's to write, and a command it names must never run on the
 * host. Nothing here runs a command that could invoke a hook, a filter or a diff driver the
 * user's config names (the shadow repository's config is Recur's).
 */
export function git(args: string[], opts: GitOptions = {}): Promise<{ stdout: Buffer; code: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['--no-pager', '-c', 'safe.directory=*', '-c', 'core.fsmonitor=false', '-c', 'core.quotepath=off', ...args], {
      cwd: opts.cwd, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', ...opts.env },
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (b: Buffer) => out.push(b));
    child.stderr!.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => reject(new RecurError(`git could not start: ${e.message}`, { cause: e, hint: 'install git (apt-get install git)' })));
    child.on('close', (code) => {
      const c = code ?? -1;
      if (c === 0 || opts.ok?.includes(c)) resolve({ stdout: Buffer.concat(out), code: c });
      // A lock held by a concurrent git in the same repository clears by itself: retryable.
      else reject(new RecurError(`git ${args.find((a) => !a.startsWith('-')) ?? ''} exited ${c}: ${Buffer.concat(err).toString('utf8').trim().slice(0, 2000)}`, { retryable: true }));
    });
    if (opts.input === undefined) return;
    // A git that exits before reading its input reports why through its exit code, not a pipe error.
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(opts.input);
  });
}

/** NUL-separated git output as strings, the empty tail dropped. */
export const zList = (b: Buffer): string[] => b.toString('utf8').split('\0').filter((s) => s.length > 0);
