import type { RecurConfig } from '../../config';

const MIB = 2 ** 20;

/** What SessionStarted records of the sandbox a session's kernel runs in, in bytes. */
export interface SandboxRecord {
  mode: 'on' | 'off';
  memoryBytes: number;
  processes: number;
  openFiles: number;
  fileBytes: number;
  net: string;
}

export function sandboxRecord(s: RecurConfig['sandbox']): SandboxRecord {
  return {
    mode: s.mode,
    memoryBytes: s.memoryMiB * MIB,
    processes: s.maxProcesses,
    openFiles: s.maxOpenFiles,
    fileBytes: s.maxFileMiB * MIB,
    net: s.net,
  };
}
