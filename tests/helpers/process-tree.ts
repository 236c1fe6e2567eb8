import { readFileSync } from 'node:fs';

/** A process's parent and state letter (`Z` for a zombie) from /proc, or null once it is gone. */
export function procStat(pid: number): { ppid: number; state: string } | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name, in parentheses, may hold spaces: state and parent's pid are the two fields after it.
  const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(ppid), state: state! };
}

/** A process's ancestors, nearest first, from /proc (an empty list once it is gone). */
export function ancestors(pid: number): number[] {
  const chain: number[] = [];
  for (let p = pid; p > 1;) {
    const stat = procStat(p);
    if (stat === null) break;
    p = stat.ppid;
    chain.push(p);
  }
  return chain;
}
