import { readFileSync } from 'node:fs';

/** A process's ancestors, nearest first, from /proc (an empty list once it is gone). */
export function ancestors(pid: number): number[] {
  const chain: number[] = [];
  for (let p = pid; p > 1;) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${p}/stat`, 'utf8');
    } catch {
      break;
    }
    // The command name, in parentheses, may hold spaces: the parent's pid is the second field after it.
    p = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    chain.push(p);
  }
  return chain;
}
