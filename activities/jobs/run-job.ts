import type { Context } from '@temporalio/activity';
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { RecurError } from '../../errors';
import { gateEnv } from '../run-gate';
import { createCpuPool } from './cpu-pool';
import { createLiveJobs, type JobRef } from './live-jobs';
import type { JobLaunch, JudgeRun } from './job-launch';
import { byWorkerShutdown } from '../worker-shutdown';
import { JOB_LOG_TAIL } from '../../schemas/field-limits';
import type { JobOutcome } from '../../schemas/generated/events';

export interface RunJobInput {
  sessionId: string;
  /** 'job-1', 'job-2', … unique within the session. */
  jobId: string;
  /** Run with bash -c; for a judge run, what the log shows of it. */
  command: string;
  /** Set on a research experiment: the host runs this instead of `command`. Absent in jobs from before there were any. */
  judge?: JudgeRun | null;
  /** CPU slots it holds while running (1..pool size). */
  cpus: number;
  /** Empty: run once; else run the command once per seed, in order, with RECUR_SEED=<seed> in its env. */
  seeds: number[];
  /** The whole job (all seeds); null: no limit. */
  timeoutSeconds: number | null;
}

export interface RunJobResult {
  outcome: JobOutcome;
  /** The exit code of the run that decided the outcome (the last run when finished, the failing one when failed); null when killed or never started. */
  exitCode: number | null;
  /** Wall seconds from the job's start (after it got its CPU slots) to its end. */
  seconds: number;
  /** The last JOB_LOG_TAIL characters of the job's combined stdout+stderr. */
  logTail: string;
  /** Why, in words, when not finished ('' when finished): e.g. "exited 3 on seed 2", "killed after its 5 s timeout", "cancelled". */
  reason: string;
  /** Runs its executor stopped and ran again from the start (Slurm's preemption and requeue); 0 for the local executor. */
  preemptions: number;
}

export interface JobDeps {
  /** CPU slots of this host's pool; the host's bridge refuses larger jobs at submit time (services/worker/job-ops.ts). */
  cpus: number;
  /** Where the job's combined output goes (created with its parent dirs, truncated at each attempt). */
  logFile(sessionId: string, jobId: string): string;
  /** What runs the job's command, sandboxed or not, or its judge run (job-launch.ts). */
  launch(input: RunJobInput): JobLaunch | Promise<JobLaunch>;
  /** The launcher's environment; whatever looks like a secret is dropped from it here all the same. */
  env: NodeJS.ProcessEnv;
  /** Called once the job holds its CPU slots and its first process is spawned; awaited before runJob returns, errors are logged and ignored. */
  onStarted(input: RunJobInput): Promise<void>;
  /**
   * Called with the job's end before its CPU slots go to the next job, so the next one's start is
   * reported after it; awaited, errors logged and ignored. Not called when the worker is shutting down.
   */
  onEnded(input: RunJobInput, result: RunJobResult): Promise<void>;
}

export interface JobActivities {
  runJob(input: RunJobInput): Promise<RunJobResult>;
  /**
   * Stops a job this process runs or holds queued, as a cancellation of its runJob would, but at
   * once: that one reaches the activity only with its next heartbeat to the server, which the SDK
   * sends at most every 80% of the heartbeat timeout. A job this process does not hold: no-op.
   */
  cancelJob(job: JobRef): Promise<void>;
}

/** How one run of the command ended. */
interface RunEnd {
  seed: number | null;
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

type Stop = 'timeout' | 'cancel';

/** One run: its output straight into the log file, so nothing is lost to a full pipe or a dying worker. */
function runOnce(launch: JobLaunch, env: NodeJS.ProcessEnv, log: number, seed: number | null, spawned: (pid: number) => void): Promise<RunEnd> {
  return new Promise((resolve) => {
    const [file, ...args] = launch.argv;
    // Its own process group, so one kill reaches everything it started.
    const child = spawn(file, args, { cwd: launch.cwd, env, stdio: ['ignore', log, log], detached: true });
    child.on('error', (error) => resolve({ seed, code: null, signal: null, error }));
    child.on('exit', (code, signal) => resolve({ seed, code, signal }));
    if (child.pid !== undefined) spawned(child.pid);
  });
}

/** The last `chars` characters of a job's log ('' when there is none), read from its end: a large log costs no more. */
export async function readLogTail(path: string, chars: number): Promise<string> {
  const f = await open(path, 'r').catch(() => null);
  if (!f) return '';
  try {
    const { size } = await f.stat();
    // UTF-8 takes at most 4 bytes a character.
    const length = Math.min(size, chars * 4);
    const buf = Buffer.alloc(length);
    await f.read(buf, 0, length, size - length);
    return buf.toString('utf8').slice(-chars);
  } finally {
    await f.close();
  }
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

function verdict(stop: Stop | null, last: RunEnd | null, input: RunJobInput): Pick<RunJobResult, 'outcome' | 'exitCode' | 'reason'> {
  if (stop === 'timeout') return { outcome: 'timed_out', exitCode: null, reason: `killed after its ${input.timeoutSeconds} s timeout` };
  if (stop === 'cancel' || last === null) return { outcome: 'cancelled', exitCode: null, reason: 'cancelled' };
  const on = last.seed === null ? '' : ` on seed ${last.seed}`;
  if (last.error) return { outcome: 'failed', exitCode: null, reason: `could not start${on}: ${last.error.message}` };
  if (last.code === 0) return { outcome: 'finished', exitCode: 0, reason: '' };
  if (last.code !== null) return { outcome: 'failed', exitCode: last.code, reason: `exited ${last.code}${on}` };
  return { outcome: 'failed', exitCode: null, reason: `killed by ${last.signal}${on}` };
}

/**
 * Agents' shell jobs on this host: a FIFO pool of CPU slots (one per worker process), then the
 * command once per seed in the session's sandbox, ended at the first failure, the timeout or a
 * cancellation by killing its process group. A cancellation resolves as a 'cancelled' result (the
 * workflow waits for it: WAIT_CANCELLATION_COMPLETED); only a worker shutting down rethrows it, so
 * the job, killed all the same, fails as lost by its executor rather than cancelled by its agent.
 */
export function createJobActivities(deps: JobDeps): JobActivities {
  const pool = createCpuPool(deps.cpus);
  const env = gateEnv(deps.env);
  const live = createLiveJobs();

  async function execute(ctx: Context, input: RunJobInput, cancelled: AbortSignal): Promise<RunJobResult> {
    const launch = await deps.launch(input);
    const path = deps.logFile(input.sessionId, input.jobId);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, '');
    const log = openSync(path, 'a');
    const t0 = Date.now();
    let stop: Stop | null = null;
    let running: number | null = null;
    let started: Promise<void> | null = null;
    const halt = (why: Stop) => {
      stop ??= why;
      if (running !== null) killGroup(running);
    };
    const timer = input.timeoutSeconds === null ? null : setTimeout(() => halt('timeout'), input.timeoutSeconds * 1000);
    const cancel = () => halt('cancel');
    cancelled.addEventListener('abort', cancel);
    if (cancelled.aborted) cancel();
    let last: RunEnd | null = null;
    try {
      const { RECUR_SEED: _, ...base } = env;
      for (const seed of input.seeds.length > 0 ? input.seeds : [null]) {
        if (stop !== null) break;
        if (seed !== null) writeSync(log, `== seed ${seed} ==\n`);
        const runEnv = seed === null ? base : { ...base, RECUR_SEED: String(seed) };
        last = await runOnce(launch, runEnv, log, seed, (pid) => {
          running = pid;
          started ??= deps.onStarted(input).catch((error: unknown) => ctx.log.warn('onStarted failed', { jobId: input.jobId, error }));
        });
        // What a run left in the background ends with it: it would hold CPUs the job no longer does.
        if (running !== null) killGroup(running);
        running = null;
        if (last.code !== 0) break;
      }
    } finally {
      if (timer) clearTimeout(timer);
      cancelled.removeEventListener('abort', cancel);
    }
    await started;
    const seconds = (Date.now() - t0) / 1000;
    const v = verdict(stop, last, input);
    if (v.outcome === 'timed_out' || v.outcome === 'cancelled') writeSync(log, `\n== ${v.reason} ==\n`);
    closeSync(log);
    return { ...v, seconds, logTail: await readLogTail(path, JOB_LOG_TAIL), preemptions: 0 };
  }

  return {
    async runJob(input) {
      if (!Number.isInteger(input.cpus) || input.cpus < 1 || input.cpus > deps.cpus) {
        throw new RecurError(`${input.jobId} asks for ${input.cpus} CPU slot(s); this host's job pool has ${deps.cpus}`, { retryable: false });
      }
      return live.run(input, async (ctx, cancelled) => {
        const release = await pool.acquire(input.cpus, cancelled);
        try {
          const result: RunJobResult = release === null
            ? { outcome: 'cancelled', exitCode: null, seconds: 0, logTail: '', reason: 'cancelled before it started', preemptions: 0 }
            : await execute(ctx, input, cancelled);
          if (result.outcome === 'cancelled' && byWorkerShutdown(ctx)) throw ctx.cancellationSignal.reason;
          await deps.onEnded(input, result).catch((error: unknown) => ctx.log.warn('onEnded failed', { jobId: input.jobId, error }));
          return result;
        } finally {
          release?.();
        }
      });
    },
    async cancelJob(job) {
      live.cancel(job);
    },
  };
}
