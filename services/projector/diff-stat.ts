/** A unified diff's per-file line counts, and git's `--stat` rendering of them. Pure. */

export interface FileStat {
  path: string;
  added: number;
  deleted: number;
  binary: boolean;
}

const unquote = (p: string): string => (p.startsWith('"') ? (JSON.parse(p) as string) : p);

/** Files and their added/deleted lines in a git-format unified diff, in diff order. */
export function diffStat(patch: string): FileStat[] {
  const files: FileStat[] = [];
  let cur: FileStat | null = null;
  let inHunk = false;
  for (const line of patch.split('\n')) {
    const head = /^diff --git (?:"?a\/)(.*?)"? (?:"?b\/)(.*?)"?$/.exec(line);
    if (head) {
      cur = { path: unquote(head[2]!), added: 0, deleted: 0, binary: false };
      files.push(cur);
      inHunk = false;
    } else if (!cur) continue;
    else if (line.startsWith('@@')) inHunk = true;
    else if (!inHunk && line.startsWith('Binary files ')) cur.binary = true;
    else if (inHunk && line.startsWith('+')) cur.added++;
    else if (inHunk && line.startsWith('-')) cur.deleted++;
  }
  return files;
}

/** ` N files changed, X insertions(+), Y deletions(-)`, as git words it. */
export function statSummary(stats: readonly FileStat[]): string {
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const added = stats.reduce((n, f) => n + f.added, 0);
  const deleted = stats.reduce((n, f) => n + f.deleted, 0);
  const parts = [plural(stats.length, 'file changed', 'files changed')];
  if (added || !deleted) parts.push(`${plural(added, 'insertion(+)', 'insertions(+)')}`);
  if (deleted) parts.push(`${plural(deleted, 'deletion(-)', 'deletions(-)')}`);
  return ` ${parts.join(', ')}`;
}

/** git's `--stat` lines: ` path | 12 +++---` per file, scaled to `width` columns of bars, then the summary. */
export function formatDiffStat(stats: readonly FileStat[], width = 60): string[] {
  const pathWidth = Math.min(Math.max(0, ...stats.map((f) => f.path.length)), 50);
  const most = Math.max(0, ...stats.map((f) => f.added + f.deleted));
  const bars = Math.max(1, width - pathWidth - 8);
  const scale = most > bars ? bars / most : 1;
  const lines = stats.map((f) => {
    const path = f.path.length > pathWidth ? `...${f.path.slice(f.path.length - pathWidth + 3)}` : f.path.padEnd(pathWidth);
    if (f.binary) return ` ${path} | Bin`;
    const n = f.added + f.deleted;
    const plus = Math.round(f.added * scale);
    const minus = Math.round(f.deleted * scale);
    return ` ${path} | ${String(n).padStart(String(most).length)} ${'+'.repeat(plus)}${'-'.repeat(minus)}`;
  });
  return stats.length ? [...lines, statSummary(stats)] : [];
}
