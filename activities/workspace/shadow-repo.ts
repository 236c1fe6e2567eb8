/**
 * A workspace as git sees it, through a shadow repository under the Recur home: its own index
 * (GIT_INDEX_FILE) and object store, the workspace as its work tree. The user's repository is only
 * read: its objects as alternates, its index copied once as a warm start, its info/exclude.
 * git gives .gitignore semantics (nested files, negations, .git/ skipped), content hashes, a stat
 * cache that makes a rescan cost a walk, and diffs between any two scans.
 */
import { createHash } from 'node:crypto';
import { chmod, copyFile, lstat, mkdir, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { driversOffEnv, git, zList } from './git';
import { EMPTY_TREE, type OverCapFile } from './manifest';

export interface ShadowRepo {
  workspace: string;
  /** The shadow's directory: `git/` (bare), `index`, `latest.json`. */
  dir: string;
  env: Record<string, string>;
  /** The user's `.git/info/exclude`, when the workspace is the top of a repository. */
  excludeFrom: string | null;
  /** The git repository the workspace is in; null for a plain directory. */
  repo: EnclosingRepo | null;
  /** Files besides the workspace's own that decide which of its files a scan sees: the exclude and config files git reads. */
  inputs: string[];
}

export interface EnclosingRepo {
  top: string;
  gitDir: string;
  commonDir: string;
  /** The workspace's path inside the repository ('' at its top). */
  rel: string;
}

export const shadowDir = (root: string, workspace: string): string =>
  join(root, createHash('sha256').update(resolve(workspace), 'utf8').digest('hex').slice(0, 32));

/** The repository the workspace belongs to: its top and git dirs; null when none, or when that repository ignores the workspace. */
export async function enclosingRepo(workspace: string): Promise<EnclosingRepo | null> {
  const r = await git(['-C', workspace, 'rev-parse', '--show-toplevel', '--absolute-git-dir', '--git-common-dir'], { ok: [128] });
  if (r.code !== 0) return null;
  const [top, gitDir, common] = r.stdout.toString('utf8').trim().split('\n') as [string, string, string];
  const rel = relative(top, workspace);
  // A workspace the enclosing repository ignores (a home inside a checkout) is not part of it.
  if (rel !== '' && (await git(['-C', top, 'check-ignore', '-q', '--no-index', '--', rel], { ok: [1] })).code === 0) return null;
  return { top, gitDir, commonDir: resolve(workspace, common), rel: rel.split(sep).join('/') };
}

/** Opens (creating on first use) the shadow repository of `workspace` under `root`. */
export async function openShadow(root: string, workspace: string): Promise<ShadowRepo> {
  const dir = shadowDir(root, workspace);
  const gitDir = join(dir, 'git');
  const env = { GIT_DIR: gitDir, GIT_WORK_TREE: workspace, GIT_INDEX_FILE: join(dir, 'index') };
  // Settings are the repository's alone: git refuses a work tree that does not exist yet (a session's first scan may come first).
  const bare = { GIT_DIR: gitDir };
  const repo = existsSync(workspace) ? await enclosingRepo(workspace) : null;
  const atTop = repo !== null && repo.rel === '';
  if (!existsSync(join(gitDir, 'HEAD'))) {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await git(['init', '-q', '--bare', gitDir]);
    // Trees of old scans must stay: a session's net diff reads its start tree.
    await git(['config', 'gc.auto', '0'], { env: bare });
    // A split index: each scan rewrites a small delta, not the whole index (for 10,000 files, 800 KB twice a scan).
    await git(['config', 'core.splitIndex', 'true'], { env: bare });
    // The user's objects, read in place: its committed files are never copied, and HEAD's tree is there to compare with.
    if (repo) await writeFile(join(gitDir, 'objects', 'info', 'alternates'), `${join(repo.commonDir, 'objects')}\n`);
    if (atTop) {
      // The user's index: its stat data is valid for the same files, so the first scan hashes only what is dirty.
      // A copy keeps its source's mode, and the user's may be open to all: the home's copy is the owner's.
      if (existsSync(join(repo.gitDir, 'index'))) {
        await copyFile(join(repo.gitDir, 'index'), env.GIT_INDEX_FILE);
        await chmod(env.GIT_INDEX_FILE, 0o600);
      }
    }
  }
  const exclude = atTop ? join(repo.gitDir, 'info', 'exclude') : null;
  const excludeFrom = exclude && existsSync(exclude) ? exclude : null;
  // The workspace's attributes are the agent's: no filter driver they name (the user's own, from git's global config) runs on its files.
  const off = await driversOffEnv(dir, bare);
  return { workspace, dir, env: { ...env, ...off }, excludeFrom, repo, inputs: await scanInputs(gitDir, excludeFrom) };
}

/** Every file git takes ignore rules or settings from besides the workspace's own `.gitignore` files. */
async function scanInputs(gitDir: string, excludeFrom: string | null): Promise<string[]> {
  const config = join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'git');
  const custom = await git(['config', '--path', '--get', 'core.excludesFile'], { env: { GIT_DIR: gitDir }, ok: [1] });
  return [
    join(gitDir, 'info', 'exclude'), join(gitDir, 'config'), ...(excludeFrom ? [excludeFrom] : []),
    process.env.GIT_CONFIG_SYSTEM || '/etc/gitconfig', process.env.GIT_CONFIG_GLOBAL || join(homedir(), '.gitconfig'), join(config, 'config'),
    custom.code === 0 ? custom.stdout.toString('utf8').trim() : join(config, 'ignore'),
  ];
}

const excludes = (s: ShadowRepo): string[] => ['--exclude-standard', ...(s.excludeFrom ? [`--exclude-from=${s.excludeFrom}`] : [])];

/**
 * Brings the shadow index up to the workspace and writes its tree: only paths git's stat cache
 * says changed, new or gone are looked at. Files over `maxBytes` stay out of the index (listed by size).
 */
export async function scanTree(s: ShadowRepo, maxBytes: number): Promise<{ tree: string; overCap: OverCapFile[]; sizes: Map<string, number> }> {
  if (!existsSync(s.workspace)) return { tree: EMPTY_TREE, overCap: [], sizes: new Map() };
  // Tracked paths changed or removed, and untracked ones: two walks at once, on two cores where there are.
  const [tracked, untracked] = await Promise.all([
    git(['ls-files', '-z', '-m', '-d'], { env: s.env }),
    git(['ls-files', '-z', '-o', ...excludes(s)], { env: s.env }),
  ]);
  const listed = new Map<string, boolean>(zList(untracked.stdout).map((p) => [p, false]));
  for (const p of zList(tracked.stdout)) listed.set(p, true);
  const update: string[] = [];
  const drop: string[] = [];
  const overCap: OverCapFile[] = [];
  const sizes = new Map<string, number>();
  for (const [path, inIndex] of listed) {
    const st = await lstat(join(s.workspace, path)).catch(() => null);
    if (st === null) update.push(path);
    else if (st.isDirectory()) continue; // a nested repository: its own history, not this workspace's files
    else if (st.isFile() && st.size > maxBytes) {
      overCap.push([path, st.size]);
      // Over the cap and untracked stays out of the index with no git run: only a tracked one is dropped from it.
      if (inIndex) drop.push(path);
    } else {
      update.push(path);
      sizes.set(path, st.size);
    }
  }
  if (update.length) await git(['update-index', '-z', '--add', '--remove', '--stdin'], { env: s.env, input: `${update.join('\0')}\0` });
  if (drop.length) await git(['update-index', '-z', '--force-remove', '--stdin'], { env: s.env, input: `${drop.join('\0')}\0` });
  return { tree: await writeTree(s.env), overCap, sizes };
}

/** The tree each index file last wrote, with the index's identity then; one entry per shadow (and scratch index) in use. */
const writtenTrees = new Map<string, { tree: string; index: string }>();

/**
 * The index's tree. A cell that changed nothing leaves the index as the last scan wrote it, and
 * a git run costs a step more than the rest of the scan (a fork of the worker), so the tree is
 * kept by the index's identity: git replaces the file on every write (a new inode and ctime),
 * whichever process writes it, so a matching identity is the same index.
 */
async function writeTree(env: Record<string, string>): Promise<string> {
  const file = env.GIT_INDEX_FILE;
  const known = writtenTrees.get(file);
  if (known && known.index === await indexIdentity(file)) return known.tree;
  const tree = (await git(['write-tree'], { env })).stdout.toString('utf8').trim();
  // Read after the run: write-tree itself rewrites the index to store its cache-tree.
  const index = await indexIdentity(file);
  if (index !== null) writtenTrees.set(file, { tree, index });
  return tree;
}

/** An index file's identity: git replaces the file on every write, so a new identity is a new index. */
export async function indexIdentity(file: string): Promise<string | null> {
  const st = await lstat(file, { bigint: true }).catch(() => null);
  return st && `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
}

/** What ignore rules keep out: entries as git lists them (an ignored directory once) and the size of the plain files among them. */
export async function ignoredSummary(s: ShadowRepo): Promise<{ entries: number; bytes: number }> {
  if (!existsSync(s.workspace)) return { entries: 0, bytes: 0 };
  const paths = zList((await git(['ls-files', '-z', '-o', '-i', '--directory', ...excludes(s)], { env: s.env })).stdout);
  let bytes = 0;
  for (const p of paths) {
    // lstat: a link the agent made is measured as a link, never followed out of the workspace.
    const st = await lstat(join(s.workspace, p)).catch(() => null);
    if (st?.isFile()) bytes += st.size;
  }
  return { entries: paths.length, bytes };
}

/**
 * The changes between two trees in one git run: the raw and numstat listing (NUL-separated; it
 * ends at the first empty record, as no path is empty), then the unified diff.
 */
export async function diffTrees(s: ShadowRepo, from: string, to: string): Promise<{ listing: string; patch: Buffer }> {
  const out = (await git(['diff-tree', '-r', '-z', '--raw', '--numstat', '-p', '--no-renames', '--no-color', from, to], { env: s.env })).stdout;
  const end = out.indexOf('\0\0');
  if (end < 0) return { listing: out.toString('utf8'), patch: Buffer.alloc(0) };
  return { listing: out.subarray(0, end + 1).toString('utf8'), patch: out.subarray(end + 2) };
}

/** Unified diff (git format, no renames) between two trees; empty when they hold the same text. */
export async function patchOf(s: ShadowRepo, from: string, to: string): Promise<Buffer> {
  return (await git(['diff-tree', '-p', '--no-renames', '--no-color', from, to], { env: s.env })).stdout;
}

/**
 * The user's repository at the workspace: HEAD, branch, and how many paths differ from HEAD
 * (changed, new or gone; ignored ones not counted), from the scan's tree against HEAD's. Not
 * `git status`, which would run the fsmonitor or clean filters the workspace's `.git/config` names.
 */
export async function gitState(s: ShadowRepo, tree: string, overCap: OverCapFile[]): Promise<{ head: string | null; branch: string | null; dirtyPaths: number } | null> {
  if (!s.repo) return null;
  const rev = async (spec: string) => {
    const r = await git(['-C', s.workspace, 'rev-parse', '-q', '--verify', spec], { ok: [1, 128] });
    return r.code === 0 ? r.stdout.toString('utf8').trim() : null;
  };
  const head = await rev('HEAD^{commit}');
  const branch = await git(['-C', s.workspace, 'symbolic-ref', '-q', '--short', 'HEAD'], { ok: [1, 128] });
  const base = (head && (await rev(`${head}:${s.repo.rel}`))) ?? EMPTY_TREE;
  const differ = new Set(zList((await git(['diff-tree', '-r', '-z', '--name-only', '--no-renames', base, tree], { env: s.env })).stdout));
  for (const [path] of overCap) differ.add(path);
  return { head, branch: branch.code === 0 ? branch.stdout.toString('utf8').trim() : null, dirtyPaths: differ.size };
}
