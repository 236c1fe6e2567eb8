import type { Context } from '@temporalio/activity';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { JOB_LOG_TAIL } from '../../schemas/field-limits';
import { gateEnv } from '../run-gate';
import { byWorkerShutdown } from '../worker-shutdown';
import { createLiveJobs } from './live-jobs';
import { readLogTail, type JobActivities, type JobDeps, type RunJobInput, type RunJobResult } from './run-job';
import type { SlurmClient, SlurmJobState } from './slurm-cli';
import { batchScript, seedFile, slurmJobName } from './slurm-script';

export interface Preemption {
  /** Slurm put it back in its queue (it runs again from the start); false: it was stopped for good. */
  requeued: boolean;
  /** In words: "preempted by a higher-priority job", "its node failed", … */
  reason: string;
  slurmId: string;
}

export interface SlurmJobDeps extends Omit<JobDeps, 'cpus'> {
  slurm: SlurmClient;
  /** null: the cluster's default partition. */
  partition: string | null;
  /** Called each time Slurm stops a run of the job before its end (preemption, a lost node); awaited, errors logged and ignored. */
  onPreempted(input: RunJobInput, p: Preemption): Promise<void>;
  /** How often the job's state is read; the session is told by the callbacks, it never polls. */
  pollMs?: number;
}

/** How long Slurm may not answer before the attempt following a job gives up (and is retried). */
const UNANSWERED_MS = 60_000;

/** States after which Slurm runs the job no more (a requeued job goes back to PENDING instead). */
const TERMINAL = new Set(['COMPLETED', 'FAILED', 'NODE_FAIL', 'OUT_OF_MEMORY', 'TIMEOUT', 'CANCELLED', 'PREEMPTED', 'BOOT_FAIL', 'DEADLINE', 'REVOKED']);

const WHY_REQUEUED: Record<string, string> = {
  PREEMPTED: 'preempted by a higher-priority job',
  NODE_FAIL: 'its node failed',
};

type Stop = 'timeout' | 'cancel';

const sleep = (ms: number, signal: AbortSignal) => new Promise<void>((resolve) => {
  const t = setTimeout(done, ms);
  function done() {
    clearTimeout(t);
    signal.removeEventListener('abort', done);
    resolve();
  }
  signal.addEventListener('abort', done);
});

function verdict(s: SlurmJobState, stop: Stop | null, input: RunJobInput, failedSeed: string | null): Pick<RunJobResult, 'outcome' | 'exitCode' | 'reason'> {
  const on = failedSeed ? ` on seed ${failedSeed}` : '';
  if (stop === 'timeout' || s.state === 'TIMEOUT') return { outcome: 'timed_out', exitCode: null, reason: `killed after its ${input.timeoutSeconds} s timeout` };
  if (s.state === 'CANCELLED') return { outcome: 'cancelled', exitCode: null, reason: stop === 'cancel' ? 'cancelled' : 'cancelled in Slurm (scancel) by another' };
  if (s.state === 'COMPLETED') return { outcome: 'finished', exitCode: s.exitCode ?? 0, reason: '' };
  if (s.state === 'FAILED' && s.exitCode !== null && s.exitCode !== 0) return { outcome: 'failed', exitCode: s.exitCode, reason: `exited ${s.exitCode}${on}` };
  if (s.state === 'FAILED' && s.signal) return { outcome: 'failed', exitCode: null, reason: `killed by signal ${s.signal}${on}` };
  if (s.state === 'OUT_OF_MEMORY') return { outcome: 'failed', exitCode: s.exitCode, reason: `ran out of memory${on}` };
  if (s.state === 'PREEMPTED') return { outcome: 'failed', exitCode: null, reason: 'preempted by a higher-priority job and not requeued' };
  return { outcome: 'failed', exitCode: s.exitCode, reason: `Slurm ended it ${s.state}${s.reason && s.reason !== 'None' ? ` (${s.reason})` : ''}` };
}

/**
 * Agents' shell jobs on a Slurm cluster: one batch job per Recur job (sbatch), followed through
 * the controller until it ends, with the same results as the local executor. The Slurm job is
 * named after the session and job, so a runJob retried after its worker died adopts the job
 * the lost attempt submitted: a job never runs as a second trial. A requeued run (preemption)
 * is reported and followed under the same Slurm id, and only the final run's output is read.
 */
export function createSlurmJobActivities(deps: SlurmJobDeps): JobActivities {
  const env = gateEnv(deps.env);
  const pollMs = deps.pollMs ?? 1_000;
  const live = createLiveJobs();

  /** Submits the job, or finds the one an earlier attempt submitted. */
  async function submitOrAdopt(input: RunJobInput, log: string): Promise<string> {
    const name = slurmJobName(input.sessionId, input.jobId);
    const earlier = (await deps.slurm.findByName(name)).at(-1);
    if (earlier !== undefined) return earlier;
    mkdirSync(dirname(log), { recursive: true });
    writeFileSync(log, '');
    rmSync(seedFile(log), { force: true });
    const launch = await deps.launch(input);
    const { RECUR_SEED: _, ...base } = env;
    return deps.slurm.submit(batchScript(launch, input.seeds, log), {
      name, cpus: input.cpus, output: log, cwd: launch.cwd, partition: deps.partition, env: base,
      // Slurm's limit is in whole minutes; the exact seconds are enforced here.
      minutes: input.timeoutSeconds === null ? null : Math.ceil(input.timeoutSeconds / 60),
    });
  }

  async function follow(ctx: Context, input: RunJobInput, id: string, log: string, cancelled: AbortSignal): Promise<RunJobResult> {
    const warn = (what: string) => (error: unknown) => ctx.log.warn(`${what} failed`, { jobId: input.jobId, slurmId: id, error });
    let stop: Stop | null = null;
    let scancelled = false;
    let started: Promise<void> | null = null;
    let firstStart: number | null = null;
    let runStart: number | null = null;
    let restarts: number | null = null;
    let s: SlurmJobState | null = null;
    // Once scancel is sent the wait is Slurm's: the poll goes on at its pace, not in a tight loop.
    const patient = new AbortController().signal;
    let unanswered = 0;
    for (;;) {
      try {
        s = await deps.slurm.show(id);
        unanswered = 0;
      } catch (e) {
        // A controller restarting is no end of the job; one gone for long fails this attempt, and the retry adopts the job.
        if (++unanswered * pollMs >= UNANSWERED_MS) throw e;
        ctx.log.warn('Slurm did not answer', { jobId: input.jobId, slurmId: id, error: e });
        await sleep(pollMs, patient);
        continue;
      }
      if (s === null) break;
      // An adopted job's earlier requeues were reported by the attempt that saw them.
      restarts ??= s.restarts;
      for (; restarts < s.restarts; restarts++) {
        const history = await deps.slurm.history(id);
        const why = WHY_REQUEUED[history[restarts] ?? ''] ?? 'requeued by Slurm';
        runStart = null;
        await deps.onPreempted(input, { requeued: true, reason: why, slurmId: id }).catch(warn('onPreempted'));
      }
      // A run shorter than a poll is seen only ended: it started all the same, and is reported so.
      if (s.state === 'RUNNING' || (TERMINAL.has(s.state) && s.ran && started === null)) {
        runStart ??= Date.now() - s.runSeconds * 1000;
        firstStart ??= runStart;
        started ??= deps.onStarted(input).catch(warn('onStarted'));
        if (s.state === 'RUNNING' && input.timeoutSeconds !== null && Date.now() - runStart >= input.timeoutSeconds * 1000) stop ??= 'timeout';
      }
      if (TERMINAL.has(s.state)) break;
      // The Slurm job outlives this worker: it runs on, and the retried attempt adopts it.
      if (cancelled.aborted && byWorkerShutdown(ctx)) throw ctx.cancellationSignal.reason;
      if (cancelled.aborted) stop ??= 'cancel';
      if (stop !== null && !scancelled) {
        scancelled = true;
        await deps.slurm.cancel(id);
      }
      await sleep(pollMs, scancelled ? patient : cancelled);
    }
    await started;
    if (s?.state === 'PREEMPTED') {
      await deps.onPreempted(input, { requeued: false, reason: 'preempted by a higher-priority job', slurmId: id }).catch(warn('onPreempted'));
    }
    const failedSeed = input.seeds.length > 0 ? readSeed(log) : null;
    const v = s === null
      ? { outcome: 'failed' as const, exitCode: null, reason: `Slurm no longer knows its job ${id}` }
      : verdict(s, stop, input, failedSeed);
    if (v.outcome === 'cancelled' && stop === 'cancel' && firstStart === null) v.reason = 'cancelled before it started';
    const seconds = firstStart === null ? 0 : (Date.now() - firstStart) / 1000;
    // Slurm's count, so requeues before an adoption count too; a final preemption stopped a run as well.
    const preemptions = (s?.restarts ?? 0) + (s?.state === 'PREEMPTED' ? 1 : 0);
    return { ...v, seconds, logTail: await readLogTail(log, JOB_LOG_TAIL), preemptions };
  }

  return {
    async runJob(input) {
      return live.run(input, async (ctx, cancelled) => {
        const log = deps.logFile(input.sessionId, input.jobId);
        const submitted = await submitOrAdopt(input, log).catch((e: Error) => {
          if (byWorkerShutdown(ctx)) throw e;
          return e;
        });
        // sbatch refusing it (too many CPUs, no such partition) or Slurm unreachable: nothing runs, an end like any other.
        // Errors while following it fail this attempt instead: the workflow retries a Slurm job's runJob, and the retry adopts it.
        const result: RunJobResult = submitted instanceof Error
          ? { outcome: 'failed', exitCode: null, seconds: 0, logTail: '', reason: `Slurm could not run it: ${submitted.message}`, preemptions: 0 }
          : await follow(ctx, input, submitted, log, cancelled);
        await deps.onEnded(input, result).catch((error: unknown) => ctx.log.warn('onEnded failed', { jobId: input.jobId, error }));
        return result;
      });
    },
    async cancelJob(job) {
      if (live.cancel(job)) return;
      // Followed by another process of this host (or none, its worker gone): Slurm stops it all the same.
      for (const id of await deps.slurm.findByName(slurmJobName(job.sessionId, job.jobId))) await deps.slurm.cancel(id);
    },
  };
}

function readSeed(log: string): string | null {
  try {
    return readFileSync(seedFile(log), 'utf8').trim() || null;
  } catch {
    return null;
  }
}
