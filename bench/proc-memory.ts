import { readdirSync, readFileSync } from 'node:fs';

/** Resident and proportional set size of one process, in MiB (PSS splits shared pages among sharers). */
export interface ProcMemory {
  pid: number;
  rssMiB: number;
  pssMiB: number;
}

/** Parent pid of each live process, read from /proc/<pid>/stat (the field after the command in parentheses). */
function parents(): Map<number, number> {
  const out = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      out.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/** `root` and every process below it. */
export function processTree(root: number): number[] {
  const byParent = new Map<number, number[]>();
  for (const [pid, ppid] of parents()) byParent.set(ppid, [...(byParent.get(ppid) ?? []), pid]);
  const out: number[] = [];
  const walk = (pid: number) => {
    out.push(pid);
    for (const child of byParent.get(pid) ?? []) walk(child);
  };
  walk(root);
  return out;
}

export function memoryOf(pid: number): ProcMemory | null {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
    return { pid, rssMiB: kb('Rss') / 1024, pssMiB: kb('Pss') / 1024 };
  } catch {
    return null;
  }
}

/** Summed memory of `root`'s whole process tree. */
export function treeMemory(root: number): { rssMiB: number; pssMiB: number; processes: number } {
  const mems = processTree(root).map(memoryOf).filter((m): m is ProcMemory => m !== null);
  return { rssMiB: mems.reduce((s, m) => s + m.rssMiB, 0), pssMiB: mems.reduce((s, m) => s + m.pssMiB, 0), processes: mems.length };
}
