import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RecurConfig } from '../config';
import { repoRoot } from '../services/home/repo-root';
import { configToEnv } from '../config';

/** A Recur worker in a process of its own (dist/services/worker/main.js), so it can be SIGKILLed. */
export interface WorkerProcess {
  child: ChildProcess;
  /** The last few KiB it wrote to stderr, for error messages. */
  stderr(): string;
  kill(signal: NodeJS.Signals): Promise<void>;
}

/** A worker process beside the stack's own, on its own task queue. */
/** `env` on top of the stack's: RECUR_WORKER_REPLACES names a dead predecessor, as the daemon does. */
export function spawnWorker(config: RecurConfig, taskQueue: string, env: Record<string, string> = {}): WorkerProcess {
  const main = join(repoRoot(), 'dist', 'services', 'worker', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing; run npm run build first`);
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, ...configToEnv(config), RECUR_TASK_QUEUE: taskQueue, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let tail = '';
  child.stderr!.on('data', (d: Buffer) => (tail = (tail + d.toString()).slice(-4096)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    stderr: () => tail,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
