import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RecurError } from '../../errors';

export interface GitOptions {
  /** GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE: a shadow repository's or a scratch index, never the user's. */
  env?: Record<string, string>;
  cwd?: string;
  input?: string;
  /** Exit codes that are answers, not failures (`git diff --quiet` style). */
  ok?: number[];
  /** `-c` settings after the fixed ones: `driversOff` for a repository whose attributes the agent writes. */
  config?: string[];
}

export interface GitResult { code: number; stdout: string; stderr: string }

/**
 * Options before the subcommand keep git from taking its settings from where it happens to run:
 * the workspace's `.git/config` is the agent's to write, so no hook, fsmonitor command or pager it
 * names may run on the host; `safe.directory=*` because the worker may not own the repository it
 * reads; no optional locks on the user's index. Author and committer are fixed, so a snapshot
 * commit never needs an identity.
 */
const SAFE = [
  '--no-pager', '-c', 'safe.directory=*', '-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', '-c', 'core.quotepath=off',
  // An empty value empties the list of helpers; none of Recur's git runs should sign or ask for a credential.
  '-c', 'credential.helper=', '-c', 'commit.gpgSign=false', '-c', 'tag.gpgSign=false',
];
const ENV = {
  GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C',
  GIT_AUTHOR_NAME: 'recur', GIT_AUTHOR_EMAIL: 'recur@localhost', GIT_COMMITTER_NAME: 'recur', GIT_COMMITTER_EMAIL: 'recur@localhost',
};

type Ran = { code: number; stdout: Buffer; stderr: string };
type Reply = { id: number; error?: string } & Partial<Ran>;
/** The channel's structured clone hands a Buffer over as a plain Uint8Array: a Buffer over the same bytes, no copy. */
const asBuffer = (u: Uint8Array = new Uint8Array()) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);
type Pending = { resolve(r: Ran): void; reject(e: Error): void };

/**
 * The spawner: a bare Node process that runs git for this one, so a git run forks it and not
 * the worker. A fork copies the forking process's page tables, which blocked a 330 MB worker's
 * event loop 2.5 to 3.5 ms a run, and a scan that finds a change runs git five times
 * (docs/performance.md, "Git runs from a spawner"). It exits when this process goes.
 */
const SPAWNER = `
const { spawn } = require('node:child_process');
process.on('disconnect', () => process.exit(0));
process.on('message', ({ id, args, cwd, env, input }) => {
  let child;
  try {
    child = spawn('git', args, { cwd, env, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  } catch (e) {
    process.send({ id, error: e.message });
    return;
  }
  const out = [];
  const err = [];
  child.stdout.on('data', (b) => out.push(b));
  child.stderr.on('data', (b) => err.push(b));
  child.on('error', (e) => process.send({ id, error: e.message }));
  child.on('close', (code) => process.send({ id, code: code === null ? -1 : code, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') }));
  if (input === undefined) return;
  // A git that exits before reading its input reports why through its exit code, not a pipe error.
  child.stdin.on('error', () => undefined);
  child.stdin.end(input);
});`;

let spawner: { child: ChildProcess; pending: Map<number, Pending> } | undefined;
let nextId = 0;

function startSpawner(): NonNullable<typeof spawner> {
  const child = spawn(process.execPath, ['-e', SPAWNER], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'advanced' });
  const pending = new Map<number, Pending>();
  const own = { child, pending };
  child.on('message', (m: Reply) => {
    const p = pending.get(m.id);
    // A git that could not start may report its error and then its close: the first answers.
    if (!p) return;
    pending.delete(m.id);
    if (pending.size === 0) child.channel?.unref();
    if (m.error !== undefined) p.reject(new RecurError(`git could not start: ${m.error}`, { hint: 'install git (apt-get install git)' }));
    else p.resolve({ code: m.code ?? -1, stdout: asBuffer(m.stdout), stderr: m.stderr ?? '' });
  });
  const lost = (why: string) => {
    if (spawner === own) spawner = undefined;
    for (const p of pending.values()) p.reject(new RecurError(`git's spawner ${why} while git ran`, { retryable: true }));
    pending.clear();
  };
  child.on('exit', (code, signal) => lost(`exited (${signal ?? code})`));
  child.on('error', (e) => lost(`failed: ${e.message}`));
  // It never keeps this process alive by itself: its channel holds a reference only while git runs.
  child.unref();
  child.channel?.unref();
  return own;
}

/** Runs git; resolves with whatever it exited with, rejects when it could not start or its spawner was lost (retryable). */
function run(args: string[], opts: GitOptions): Promise<Ran> {
  if (!spawner?.child.connected) spawner = startSpawner();
  const { child, pending } = spawner;
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    child.channel?.ref();
    const request = { id, args: [...SAFE, ...(opts.config ?? []), ...args], cwd: opts.cwd, env: { ...process.env, ...ENV, ...opts.env }, input: opts.input };
    child.send(request, (e) => {
      if (!e || !pending.delete(id)) return;
      reject(new RecurError(`git's spawner could not be reached: ${e.message}`, { cause: e, retryable: true }));
    });
  });
}

/** git's stdout when it exits 0 (or with a code in `ok`); otherwise a retryable error naming its stderr. */
export async function git(args: string[], opts: GitOptions = {}): Promise<{ stdout: Buffer; code: number }> {
  const r = await run(args, opts);
  if (r.code === 0 || opts.ok?.includes(r.code)) return { stdout: r.stdout, code: r.code };
  // A lock held by a concurrent git in the same repository clears by itself: retryable.
  throw new RecurError(`git ${args.find((a) => !a.startsWith('-')) ?? ''} exited ${r.code}: ${r.stderr.trim().slice(0, 2000)}`, { retryable: true });
}

/** git in `cwd`, its exit code and output as text, for callers to whom a non-zero exit is an answer. */
export async function gitIn(cwd: string, args: string[], opts: Omit<GitOptions, 'cwd' | 'ok'> = {}): Promise<GitResult> {
  const r = await run(args, { ...opts, cwd });
  return { code: r.code, stdout: r.stdout.toString('utf8'), stderr: r.stderr };
}

/** NUL-separated git output as strings, the empty tail dropped. */
export const zList = (b: Buffer): string[] => b.toString('utf8').split('\0').filter((s) => s.length > 0);

/** stdout of a git command that must succeed; its stderr names the failure otherwise. */
export async function gitOut(cwd: string, args: string[], opts: Omit<GitOptions, 'cwd' | 'ok'> = {}): Promise<string> {
  const r = await gitIn(cwd, args, opts);
  if (r.code !== 0) throw new Error(`git ${args[0]} failed in ${cwd}: ${r.stderr.trim() || r.stdout.trim()}`);
  return r.stdout.trim();
}

/** The top level of the repository `dir` is, or null when it is not the top of one. */
export async function repoTop(dir: string): Promise<string | null> {
  const r = await gitIn(dir, ['rev-parse', '--show-toplevel']);
  return r.code === 0 ? r.stdout.trim() : null;
}

/**
 * A commit of `dir`'s working tree as it is (tracked and untracked files, what .gitignore leaves
 * out left out) on top of `parent`, through a scratch index: the user's index, HEAD and branches
 * are never touched; the commit is an unreferenced object. `identity`: GIT_AUTHOR_* and
 * GIT_COMMITTER_* over Recur's own.
 */
export async function snapshotCommit(dir: string, parent: string | null, message: string, config: string[] = [], identity: Record<string, string> = {}): Promise<string> {
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
    await gitOut(dir, ['add', '-A', '--', '.'], { env, config });
    const tree = await gitOut(dir, ['write-tree'], { env, config });
    return await gitOut(dir, ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message], { config, env: identity });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export async function headCommit(dir: string): Promise<string | null> {
  const r = await gitIn(dir, ['rev-parse', '--verify', '-q', 'HEAD^{commit}']);
  return r.code === 0 ? r.stdout.trim() : null;
}

/**
 * Settings that switch off every filter and merge driver git's configuration names for `dir` (system,
 * global, the repository's own, and what they include). The workspace's attributes, which the agent
 * writes, pick a driver per path; with these a path is stored as it is and a path with a custom
 * merge driver conflicts (`false` is the driver), so no command of a driver runs on the host.
 */
async function driverSettings(dir: string, env?: Record<string, string>): Promise<Array<[string, string]>> {
  const r = await gitIn(dir, ['config', '--includes', '--name-only', '--get-regexp', '^(filter|merge)\\..+\\.[a-z]+$'], { env });
  const off: Array<[string, string]> = [];
  const seen = new Set<string>();
  for (const key of r.code === 0 ? r.stdout.split('\n').filter(Boolean) : []) {
    const section = key.slice(0, key.indexOf('.'));
    const name = key.slice(section.length + 1, key.lastIndexOf('.'));
    if (seen.has(`${section}.${name}`)) continue;
    seen.add(`${section}.${name}`);
    if (section === 'filter') off.push([`filter.${name}.clean`, ''], [`filter.${name}.smudge`, ''], [`filter.${name}.process`, ''], [`filter.${name}.required`, 'false']);
    else off.push([`merge.${name}.driver`, 'false']);
  }
  return off;
}

/** `driverSettings` as `-c` options, for git run in a workspace's own repository. */
export async function driversOff(dir: string): Promise<string[]> {
  return (await driverSettings(dir)).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
}

/** `driverSettings` as GIT_CONFIG_* variables, for every git run with `env` (a shadow repository's). */
export async function driversOffEnv(dir: string, env: Record<string, string>): Promise<Record<string, string>> {
  const settings = await driverSettings(dir, env);
  return Object.fromEntries([
    ['GIT_CONFIG_COUNT', String(settings.length)],
    ...settings.flatMap(([k, v], i) => [[`GIT_CONFIG_KEY_${i}`, k], [`GIT_CONFIG_VALUE_${i}`, v]]),
  ]);
}
