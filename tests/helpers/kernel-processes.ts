import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RecurConfig } from '../../config';
import { sandboxKey, sandboxRoot } from '../../services/sandbox';

/**
 * Host pids of a session's kernel processes (bwrap and the kernel inside it): their command
 * lines name the session's sandbox directory. A kernel's own os.getpid() is its PID
 * namespace's, not the host's.
 */
export function kernelProcesses(config: RecurConfig, sessionId: string): number[] {
  const marker = `${join(sandboxRoot(config), sandboxKey(sessionId))}/`;
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d)).filter((pid) => {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return cmd.includes(marker) && cmd.includes('ipykernel');
    } catch {
      return false;
    }
  }).map(Number);
}

/** Python for an id of the kernel's process that a restart changes (its start time; its pid in the sandbox is always the same). */
export const PROCESS_ID_PY = "open('/proc/self/stat').read().split()[21]";
