import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { HistoryEntry } from './history';

/** The history's runs, oldest first. A line that does not parse (a run killed mid-write) is skipped, not fatal. */
export function readHistory(file: string): HistoryEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').flatMap((line) => {
    if (!line.trim()) return [];
    try {
      return [JSON.parse(line) as HistoryEntry];
    } catch {
      return [];
    }
  });
}

export function appendHistory(file: string, entry: HistoryEntry): void {
  appendFileSync(file, JSON.stringify(entry) + '\n');
}

/** The checkout's commit, marked `-dirty` with uncommitted changes; null where git cannot say. */
export function checkoutCommit(cwd: string): string | null {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const head = git('rev-parse', '--short=12', 'HEAD');
    return git('status', '--porcelain') ? `${head}-dirty` : head;
  } catch {
    return null;
  }
}
