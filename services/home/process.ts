import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** What a pid file records, so `down` can tell our process from an unrelated one that reused the pid. */
export interface PidRecord {
  pid: number;
  /** A string that must appear in /proc/<pid>/cmdline for the pid to still be ours. */
  marker: string;
  startedAt: string;
}

export function readPid(file: string): PidRecord | null {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as PidRecord;
  } catch {
    return null;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Alive and still running the command we started (pids are reused after a crash or reboot). */
export function isOurs(rec: PidRecord): boolean {
  if (!isAlive(rec.pid)) return false;
  try {
    return readFileSync(`/proc/${rec.pid}/cmdline`, 'utf8').includes(rec.marker);
  } catch {
    return false;
  }
}

/** The live process a pid file names, or null; a stale file (crashed run, reused pid) is removed. */
export function liveProcess(pidFile: string): PidRecord | null {
  const rec = readPid(pidFile);
  if (rec && isOurs(rec)) return rec;
  if (rec) rmSync(pidFile, { force: true });
  return null;
}

/**
 * Starts a long-running process in its own process group, detached from ours, with stdout and
 * stderr in `logFile` (the previous log is kept as `.1`), and records it in `pidFile`.
 */
export function startDetached(opts: {
  cmd: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  logFile: string;
  pidFile: string;
  marker: string;
}): PidRecord {
  mkdirSync(dirname(opts.logFile), { recursive: true });
  mkdirSync(dirname(opts.pidFile), { recursive: true });
  if (existsSync(opts.logFile)) renameSync(opts.logFile, `${opts.logFile}.1`);
  const fd = openSync(opts.logFile, 'a');
  try {
    const child = spawn(opts.cmd, opts.args, {
      env: opts.env,
      cwd: opts.cwd,
      detached: true,
      stdio: ['ignore', fd, fd],
    });
    if (child.pid === undefined) throw new Error(`could not start ${opts.cmd}`);
    child.unref();
    const rec: PidRecord = { pid: child.pid, marker: opts.marker, startedAt: new Date().toISOString() };
    writeFileSync(opts.pidFile, JSON.stringify(rec));
    return rec;
  } finally {
    closeSync(fd);
  }
}

/** SIGTERM to the process group, then SIGKILL after `graceMs`. Returns once the leader is gone. */
export async function stopProcess(rec: PidRecord, graceMs = 15000): Promise<void> {
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-rec.pid, sig);
    } catch {
      try {
        process.kill(rec.pid, sig);
      } catch {
        /* already gone */
      }
    }
  };
  signal('SIGTERM');
  const deadline = Date.now() + graceMs;
  while (isAlive(rec.pid) && Date.now() < deadline) await sleep(100);
  if (isAlive(rec.pid)) {
    signal('SIGKILL');
    while (isAlive(rec.pid)) await sleep(50);
  }
}
