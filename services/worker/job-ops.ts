import type { Client } from '@temporalio/client';
import { ScopeError } from '../../errors';
import { HARD } from '../../schemas/field-limits';
import { JOB_ID, jobsUpdate, type JobExecutor, type JobRequest } from '../../workflows/jobs/job-messages';
import type { HostBridge } from '../host-bridge';
import { withinLimit } from './bridge-values';
import { readLogTail } from '../../activities/jobs/run-job';

/** The most of a job's output one jobs.logs call returns. */
const MAX_LOG_TAIL = 200_000;

const jobId = (v: unknown): string => {
  if (typeof v !== 'string' || !JOB_ID.test(v)) throw new ScopeError(`no job ${JSON.stringify(v)} in this session (ids are job-1, job-2, …)`);
  return v;
};

/** The kernel's submit, from the bridge's JSON args; the workflow checks the values, this only their types. */
export function submitRequest(args: Record<string, unknown>): Extract<JobRequest, { action: 'submit' }> {
  const number = (v: unknown, what: string, fallback: number | null): number | null => {
    if (v === undefined || v === null) return fallback;
    if (typeof v !== 'number') throw new ScopeError(`${what} must be a number, got ${JSON.stringify(v)}`);
    return v;
  };
  const seeds = args.seeds ?? [];
  if (!Array.isArray(seeds)) throw new ScopeError('seeds must be a list of integers');
  return {
    action: 'submit',
    command: withinLimit('jobs.submit(cmd)', typeof args.command === 'string' ? args.command : '', HARD.jobCommand),
    cpus: number(args.cpus, 'cpus', 1)!,
    seeds: seeds.map((x) => number(x, 'a seed', null)!),
    timeoutSeconds: number(args.timeout, 'timeout', null),
  };
}

/**
 * `jobs.*` from a kernel: updates on the caller's own session workflow, which decides and logs,
 * and the log's tail read here, on the host that ran the job (`logFile` is this host's).
 */
export function registerJobOps(bridge: HostBridge, client: Client, o: { logFile(sessionId: string, jobId: string): string; cpus: number; executor: JobExecutor }): void {
  const ask = async (sessionId: string, req: JobRequest, op: string, rid: string | undefined) => {
    const reply = await client.workflow.getHandle(sessionId).executeUpdate(jobsUpdate, { args: [req], ...(rid && { updateId: `${op}-${rid}` }) });
    if (!reply.ok) throw new ScopeError(reply.reason);
    return reply.jobs;
  };
  bridge.handle('jobs.submit', async (sessionId, args, { rid }) => {
    const req = submitRequest(args);
    // The kernel calls the bridge of the host its session is placed on, where its jobs run. Slurm
    // sizes its own jobs: sbatch refuses one larger than the cluster, and the job ends failed.
    if (o.executor !== 'slurm' && req.cpus > o.cpus) throw new ScopeError(`cpus=${req.cpus} is more than this host's job pool has (${o.cpus}, RECUR_JOB_CPUS)`);
    return (await ask(sessionId, { ...req, executor: o.executor }, 'jobs.submit', rid))[0];
  });
  bridge.handle('jobs.status', async (sessionId, args, { rid }) => {
    const id = args.id === undefined || args.id === null ? null : jobId(args.id);
    const jobs = await ask(sessionId, { action: 'status', id }, 'jobs.status', rid);
    return id === null ? jobs : jobs[0];
  });
  bridge.handle('jobs.cancel', async (sessionId, args, { rid }) => (await ask(sessionId, { action: 'cancel', id: jobId(args.id) }, 'jobs.cancel', rid))[0]);
  bridge.handle('jobs.logs', async (sessionId, args) => {
    const id = jobId(args.id);
    // Asked of the session first: only its own jobs have logs it may read.
    await ask(sessionId, { action: 'status', id }, 'jobs.status', undefined);
    const tail = typeof args.tail === 'number' && args.tail > 0 ? Math.min(Math.floor(args.tail), MAX_LOG_TAIL) : MAX_LOG_TAIL;
    return readLogTail(o.logFile(sessionId, id), tail);
  });
}
