/**
 * Sensitive paths: workspace files that something runs or reads later outside Recur (CI, an
 * editor, direnv, npm, make, git), so a change to one is flagged in WorkspaceChanged and listed
 * first wherever a scan is shown (docs/sandbox.md, "Sensitive paths"). Pure: the scan hands in
 * how to read a blob, and the viewer bundles the ordering.
 *
 * A rule is a gitignore-like glob relative to the workspace: `**` any directories, `*` and `?`
 * within one segment, a rule without `/` a name in any directory, a leading `/` the top only;
 * it matches a file or a directory above it. `GLOB#key` names a JSON file whose top-level `key`
 * changed (added and removed included; JSON that does not parse, on either side, counts).
 */
import { ConfigError } from '../../errors';
import type { WorkspaceFileChange } from '../../schemas/generated/events';

export const DEFAULT_SENSITIVE_PATHS: readonly string[] = [
  '.github/workflows/**',
  // Any directory's: a pipeline's `include:` may name one outside the top.
  '.gitlab-ci.yml',
  // direnv loads the .envrc of any directory a shell enters.
  '.envrc',
  '.vscode/tasks.json', '.devcontainer/**', '.devcontainer.json',
  // npm runs the scripts (install hooks included) of any package of a monorepo; a version bump is no concern.
  'package.json#scripts',
  'Makefile', 'makefile', 'GNUmakefile',
  // Attributes, in any directory, pick the filter and diff drivers git runs on a path.
  '.gitattributes',
];

/** The schema's limit on WorkspaceFileChange.sensitive, which records the rule's text. */
const MAX_RULE = 256;

export interface SensitiveRule {
  readonly text: string;
  /** Each segment's name pattern, or `**`. */
  readonly segments: ReadonlyArray<RegExp | '**'>;
  /** A top-level JSON key: the file is flagged only when that key's value changed. */
  readonly key: string | null;
}

const nameRegExp = (glob: string): RegExp =>
  new RegExp(`^${glob.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')}$`);

export function parseSensitiveRule(text: string): SensitiveRule | { error: string } {
  const bad = (why: string) => ({ error: `"${text}" is not a sensitive-path rule: ${why}` });
  if (text.length === 0 || text.length > MAX_RULE) return bad(`expected 1-${MAX_RULE} characters`);
  // The environment's list is comma-separated, and a rule written there must read back the same.
  if (/[\s,\\]/.test(text)) return bad('no spaces, commas or backslashes');
  if (/[[\]{}!]/.test(text)) return bad('only `*`, `?` and `**` are patterns ([…], {…} and ! are not supported)');
  const [glob = '', key = null, ...more] = text.split('#');
  if (more.length > 0 || key === '') return bad('at most one `#key`, naming a JSON key');
  const anchored = glob.includes('/');
  const parts = (glob.startsWith('/') ? glob.slice(1) : glob).split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..')) return bad('empty, `.` or `..` segment (a directory\'s files are `dir/**`)');
  if (parts.some((p) => p !== '**' && p.includes('**'))) return bad('`**` must be a whole segment');
  if (key !== null && parts[parts.length - 1] === '**') return bad('a `#key` rule must name a file');
  const segments = parts.map((p) => (p === '**' ? '**' : nameRegExp(p)));
  return { text, segments: anchored ? segments : ['**', ...segments], key };
}

/** Rules already checked (the config module refuses bad ones, naming the setting). */
export function compileSensitiveRules(texts: readonly string[]): SensitiveRule[] {
  return texts.map((t) => {
    const rule = parseSensitiveRule(t);
    if ('error' in rule) throw new ConfigError([rule.error]);
    return rule;
  });
}

function matchFrom(path: readonly string[], i: number, segs: SensitiveRule['segments'], j: number): boolean {
  if (j === segs.length) return i === path.length;
  const s = segs[j]!;
  // A trailing `**` is what is inside a directory, not the directory itself.
  if (s === '**') return j === segs.length - 1 ? i < path.length : matchFrom(path, i, segs, j + 1) || (i < path.length && matchFrom(path, i + 1, segs, j));
  return i < path.length && s.test(path[i]!) && matchFrom(path, i + 1, segs, j + 1);
}

/** Whether the rule's glob names this path, or (a rule without `#key`) a directory above it. */
export function globMatches(rule: SensitiveRule, path: string): boolean {
  const parts = path.split('/');
  for (let n = rule.key === null ? 1 : parts.length; n <= parts.length; n++) if (matchFrom(parts.slice(0, n), 0, rule.segments, 0)) return true;
  return false;
}

const UNREADABLE = Symbol('unreadable');

/** Sorted keys, so reordering a JSON object is no change. */
const canonical = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1))) : x));

function keyValue(text: string, key: string): string | undefined | typeof UNREADABLE {
  try {
    const doc: unknown = JSON.parse(text.replace(/^\uFEFF/, ''));
    if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return UNREADABLE;
    return Object.hasOwn(doc, key) ? canonical((doc as Record<string, unknown>)[key]) : undefined;
  } catch {
    return UNREADABLE;
  }
}

/** Reads a git blob's text by its id. */
export type ReadBlob = (hash: string) => Promise<string>;

async function keyChanged(f: WorkspaceFileChange, key: string, read: ReadBlob): Promise<boolean> {
  // Never hashed or read: whether the key changed is unknown, so it counts.
  if (f.overCap) return true;
  const side = async (present: boolean, hash: string | null) => {
    if (!present) return undefined;
    if (hash === null) return UNREADABLE;
    return keyValue(await read(hash), key);
  };
  try {
    const [before, after] = await Promise.all([side(f.change !== 'added', f.oldHash), side(f.change !== 'deleted', f.newHash)]);
    return before === UNREADABLE || after === UNREADABLE || before !== after;
  } catch {
    return true;
  }
}

/** The first rule this change matches (its text), or null. */
export async function sensitiveRule(rules: readonly SensitiveRule[], f: WorkspaceFileChange, read: ReadBlob): Promise<string | null> {
  for (const rule of rules) {
    if (globMatches(rule, f.path) && (rule.key === null || (await keyChanged(f, rule.key, read)))) return rule.text;
  }
  return null;
}

/** Blob reads at once: a cell that adds a whole unignored node_modules must not start a git run per package.json together. */
const READS_AT_ONCE = 8;

/** Each workspace file's change with the rule it matched; git-meta entries are flagged by their kind already. */
export async function markSensitive(files: readonly WorkspaceFileChange[], rules: readonly SensitiveRule[], read: ReadBlob): Promise<WorkspaceFileChange[]> {
  const out = [...files];
  let next = 0;
  const take = async () => {
    for (let i = next++; i < out.length; i = next++) {
      const f = out[i]!;
      if (f.kind === 'file') out[i] = { ...f, sensitive: await sensitiveRule(rules, f, read) };
    }
  };
  await Promise.all(Array.from({ length: READS_AT_ONCE }, take));
  return out;
}

/** Whether a change runs or is read later outside Recur: git's own metadata, or a sensitive path. */
export const runsOutside = (f: WorkspaceFileChange): boolean => f.kind !== 'file' || f.sensitive !== null;

const rank = (f: WorkspaceFileChange): number => (f.kind !== 'file' ? 0 : f.sensitive !== null ? 1 : 2);

/** WorkspaceChanged's order: git-meta entries, then sensitive ones, then the rest, each in path order. */
export const orderChanges = (files: readonly WorkspaceFileChange[]): WorkspaceFileChange[] =>
  [...files].sort((a, b) => rank(a) - rank(b) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
