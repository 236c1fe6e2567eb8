/**
 * The pure parts of a workspace scan: the manifest (what the workspace holds, by hash), what
 * changed between two of them, and the parse of git's change listing. No I/O.
 */
import type { WorkspaceFileChange } from '../../schemas/generated/events';

export const MANIFEST_FORMAT = 'recur.workspace-manifest/1';
/** git's id of the empty tree: a workspace with nothing in it (or not there at all). */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const ZERO = /^0+$/;

/** A file over the size cap: path and size only, never hashed. */
export type OverCapFile = [path: string, size: number];

export interface WorkspaceManifest {
  format: typeof MANIFEST_FORMAT;
  /** git tree id of every file under the cap that no ignore rule excludes. */
  tree: string;
  /** Files over the cap, sorted by path. */
  overCap: OverCapFile[];
}

export function manifestOf(tree: string, overCap: OverCapFile[]): WorkspaceManifest {
  return { format: MANIFEST_FORMAT, tree, overCap: [...overCap].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) };
}

/** Canonical bytes: the same workspace content always gives the same manifest hash. */
export const encodeManifest = (m: WorkspaceManifest): Buffer => Buffer.from(JSON.stringify({ format: m.format, tree: m.tree, overCap: m.overCap }), 'utf8');

export function decodeManifest(bytes: Buffer): WorkspaceManifest {
  const m = JSON.parse(bytes.toString('utf8')) as WorkspaceManifest;
  if (m.format !== MANIFEST_FORMAT || typeof m.tree !== 'string' || !Array.isArray(m.overCap)) throw new Error(`not a ${MANIFEST_FORMAT} manifest`);
  return m;
}

export const sameManifest = (a: WorkspaceManifest, b: WorkspaceManifest): boolean =>
  encodeManifest(a).equals(encodeManifest(b));

export function fileChange(path: string, change: WorkspaceFileChange['change'], rest: Partial<WorkspaceFileChange>): WorkspaceFileChange {
  return { path, change, binary: false, overCap: false, oldHash: null, newHash: null, size: null, linesAdded: 0, linesDeleted: 0, kind: 'file', sensitive: null, ...rest };
}

/** Over-cap files that appeared, changed size or went away. A same-size rewrite is not seen: they are never read. */
export function overCapChanges(before: OverCapFile[], after: OverCapFile[]): WorkspaceFileChange[] {
  const was = new Map(before);
  const now = new Map(after);
  const out: WorkspaceFileChange[] = [];
  for (const [path, size] of after) {
    const old = was.get(path);
    if (old === undefined) out.push(fileChange(path, 'added', { overCap: true, size }));
    else if (old !== size) out.push(fileChange(path, 'modified', { overCap: true, size }));
  }
  for (const [path] of before) if (!now.has(path)) out.push(fileChange(path, 'deleted', { overCap: true }));
  return out;
}

/**
 * `git diff-tree -r -z --raw --numstat --no-renames A B`: raw records (`:mode mode sha sha X`,
 * path), then numstat records (`added<TAB>deleted<TAB>path`, `-` for binary). `sizes` maps a path to
 * its size on disk, as the scan found it.
 */
export function parseDiffTree(out: string, sizes: ReadonlyMap<string, number>): WorkspaceFileChange[] {
  const parts = out.split('\0');
  const byPath = new Map<string, { -readonly [K in keyof WorkspaceFileChange]: WorkspaceFileChange[K] }>();
  let i = 0;
  while (i < parts.length && parts[i]!.startsWith(':')) {
    const [, , oldSha, newSha, status] = parts[i]!.slice(1).split(' ');
    const path = parts[i + 1]!;
    const change = status === 'A' ? 'added' : status === 'D' ? 'deleted' : 'modified';
    const oldHash = ZERO.test(oldSha!) ? null : oldSha!;
    const newHash = ZERO.test(newSha!) ? null : newSha!;
    byPath.set(path, fileChange(path, change, { oldHash, newHash, size: newHash ? sizes.get(path) ?? null : null }));
    i += 2;
  }
  for (; i < parts.length; i++) {
    const m = /^(-|\d+)\t(-|\d+)\t([\s\S]*)$/.exec(parts[i]!);
    const entry = m ? byPath.get(m[3]!) : undefined;
    if (!m || !entry) continue;
    if (m[1] === '-') entry.binary = true;
    else Object.assign(entry, { linesAdded: Number(m[1]), linesDeleted: Number(m[2]) });
  }
  return [...byPath.values()];
}

/**
 * One entry per path: a file that crossed the cap shows in the tree diff (gone from or new to the
 * tree) and in the over-cap changes (new or gone there); together they are one modification.
 */
export function mergeChanges(tree: WorkspaceFileChange[], overCap: WorkspaceFileChange[]): WorkspaceFileChange[] {
  const out = new Map(tree.map((f) => [f.path, f]));
  for (const o of overCap) {
    const t = out.get(o.path);
    if (!t) out.set(o.path, o);
    else if (o.change === 'added') out.set(o.path, { ...o, change: 'modified', oldHash: t.oldHash });
    else out.set(o.path, { ...t, change: 'modified' });
  }
  return [...out.values()].sort(byPath);
}

export const byPath = (a: WorkspaceFileChange, b: WorkspaceFileChange): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
