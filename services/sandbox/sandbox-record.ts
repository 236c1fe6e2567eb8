import type { RecurConfig } from '../../config';
import type { SandboxPolicy } from '../../schemas/generated/events';

const MIB = 2 ** 20;

/** The sandbox settings as SessionStarted records them (and as a kernel's policy applies them), in bytes. */
export function sandboxRecord(s: RecurConfig['sandbox']): SandboxPolicy {
  return {
    mode: s.mode,
    memoryBytes: s.memoryMiB * MIB,
    processes: s.maxProcesses,
    openFiles: s.maxOpenFiles,
    fileBytes: s.maxFileMiB * MIB,
    net: s.net,
  };
}
