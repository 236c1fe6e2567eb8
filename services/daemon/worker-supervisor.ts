import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { PidRecord } from '../home/process';
import type { WorkerState } from './api-types';
import { nextRestartDelay, WORKER_RESTART_POLICY, type RestartPolicy } from './restart-delay';

export interface WorkerCommand {
  cmd: string;
  args: string[];
}

export interface WorkerSupervisorOptions {
  command: WorkerCommand;
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** stdout and stderr of every run, appended; the previous daemon's log is kept as `.1`. */
  logFile: string;
  /** Environment the next worker gets on top of `env` after one died (pid): it ends the dead one's attempts. */
  successorEnv?: (deadPid: number) => Record<string, string>;
  /** Holds the live worker's PidRecord, so `recur down` and a restarted daemon can find it. */
  pidFile: string;
  /** Must appear in the worker's command line (see PidRecord); defaults to the last argument. */
  marker?: string;
  /** How long `stop` waits after SIGTERM before SIGKILL. */
  graceMs?: number;
  policy?: RestartPolicy;
  log: (line: string) => void;
  /** What the worker sends over its IPC channel (model text deltas); not for the record. */
  onMessage?: (message: unknown) => void;
}

export interface WorkerSupervisor {
  start(): void;
  state(): WorkerState;
  /** SIGTERM, then SIGKILL after the grace period; resolves once the worker is gone. No restart after. */
  stop(): Promise<void>;
}

/** Keeps one worker process running: any exit the supervisor did not ask for is followed by a restart. */
export function createWorkerSupervisor(opts: WorkerSupervisorOptions): WorkerSupervisor {
  const { command, log } = opts;
  const marker = opts.marker ?? command.args[command.args.length - 1] ?? command.cmd;
  const graceMs = opts.graceMs ?? 15_000;
  let child: ChildProcess | undefined;
  let startedAt = 0;
  let restarts = 0;
  let lastDelay: number | null = null;
  let timer: NodeJS.Timeout | undefined;
  let stopping = false;
  let exited: Promise<void> = Promise.resolve();

  function launch(extraEnv: Record<string, string> = {}): ChildProcess {
    timer = undefined;
    // Made again each run: a restart must not fail because someone cleaned up the home meanwhile.
    mkdirSync(dirname(opts.logFile), { recursive: true });
    mkdirSync(dirname(opts.pidFile), { recursive: true });
    const fd = openSync(opts.logFile, 'a');
    let proc: ChildProcess;
    try {
      // The IPC channel carries ephemeral frames only; everything on the record goes through Kafka.
      proc = spawn(command.cmd, command.args, { env: { ...opts.env, ...extraEnv }, cwd: opts.cwd, stdio: ['ignore', fd, fd, 'ipc'] });
    } finally {
      closeSync(fd);
    }
    child = proc;
    const onMessage = opts.onMessage;
    if (onMessage) proc.on('message', (m) => onMessage(m));
    startedAt = Date.now();
    if (proc.pid !== undefined) {
      const rec: PidRecord = { pid: proc.pid, marker, startedAt: new Date(startedAt).toISOString() };
      writeFileSync(opts.pidFile, JSON.stringify(rec));
    }
    exited = new Promise((resolve) => {
      let done = false;
      const end = (why: string): void => {
        if (done) return;
        done = true;
        onEnd(proc, why);
        resolve();
      };
      proc.once('exit', (code, signal) => end(signal ? `signal ${signal}` : `code ${code}`));
      // 'error' also reports a failed kill of a live process; only a failed spawn (no pid) ends a run.
      proc.once('error', (err) => proc.pid === undefined && end(`error: ${err.message}`));
    });
    return proc;
  }

  function onEnd(proc: ChildProcess, why: string): void {
    if (proc !== child) return;
    child = undefined;
    rmSync(opts.pidFile, { force: true });
    if (stopping) return;
    const uptimeMs = Date.now() - startedAt;
    lastDelay = nextRestartDelay(lastDelay, uptimeMs, opts.policy ?? WORKER_RESTART_POLICY);
    restarts += 1;
    log(`worker (pid ${proc.pid ?? '-'}) exited with ${why} after ${(uptimeMs / 1000).toFixed(1)}s; restart #${restarts} in ${(lastDelay / 1000).toFixed(1)}s`);
    const successor = proc.pid !== undefined ? (opts.successorEnv?.(proc.pid) ?? {}) : {};
    timer = setTimeout(() => launch(successor), lastDelay);
  }

  return {
    start() {
      if (child || timer || stopping) return;
      if (existsSync(opts.logFile)) renameSync(opts.logFile, `${opts.logFile}.1`);
      const proc = launch();
      log(`worker started (pid ${proc.pid ?? '-'}): ${command.cmd} ${command.args.join(' ')}`);
    },
    state() {
      const pid = child?.pid ?? null;
      return { pid, restarts, alive: pid !== null && child?.exitCode === null && child.signalCode === null };
    },
    async stop() {
      stopping = true;
      clearTimeout(timer);
      timer = undefined;
      const proc = child;
      if (!proc) return;
      proc.kill('SIGTERM');
      const killTimer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
      try {
        await exited;
      } finally {
        clearTimeout(killTimer);
      }
      log(`worker (pid ${proc.pid}) stopped`);
    },
  };
}
