/*
 * jobs.submit / status / cancel from the session's own kernel, and the executor's reports. Each
 * change is logged first (JobQueued, JobStarted, JobPreempted, JobEnded) and made in that emit's commit.
 * Deterministic workflow code: a job is a workflow of its own (job-workflow.ts), started here.
 */
import { ParentClosePolicy, getExternalWorkflowHandle, setHandler, startChild, workflowInfo } from '@temporalio/workflow';
import { HARD, JOB_SEEDS } from '../../schemas/field-limits';
import { guardSignal, guardUpdate } from '../guard-handler';
import { DEFAULT_HOST_ID, hostTaskQueue } from '../hosts/host-queue';
import type { SessionState } from '../session-state';
import { MAX_ACTIVE_JOBS } from './job-book';
import { jobReportSignal, jobsUpdate, type JobReply, type JobReport, type JobRequest, type JobView } from './job-messages';
import { jobWorkflow, jobWorkflowId } from './job-workflow';
import type { JudgeRun } from '../../activities/jobs/job-launch';
import type { RecurEventInput } from '../../schemas/generated/events';
import { experimentEndMessage, tellAsker } from '../research/tell-asker';

/** The longest timeout a job may ask for; the job workflow's own bound is above it. */
const MAX_TIMEOUT_SECONDS = 7 * 24 * 3600;
const MAX_CPUS = 1024;

export function installJobHandlers(s: SessionState): void {
  setHandler(jobsUpdate, guardUpdate(s, (req: JobRequest) => onRequest(s, req)));
  setHandler(jobReportSignal, guardSignal(s, (r: JobReport) => onReport(s, r)));
}

/** Why no job may start now whatever it asks: the session's limit has ended its run. */
export function jobsClosed(s: SessionState): string | null {
  return s.wrappingUp ? 'the session has reached its limit and is wrapping up: no new jobs start' : null;
}

/** Why a submit is refused, or null. */
export function checkSubmit(req: Extract<JobRequest, { action: 'submit' }>, active: number): string | null {
  if (!req.command.trim()) return 'a job needs a non-empty command';
  if (req.command.length > HARD.jobCommand) return `the command is over ${HARD.jobCommand} characters`;
  if (!Number.isInteger(req.cpus) || req.cpus < 1 || req.cpus > MAX_CPUS) return `cpus must be an integer from 1 to ${MAX_CPUS}, got ${req.cpus}`;
  if (req.seeds.length > JOB_SEEDS) return `a job runs at most ${JOB_SEEDS} seeds, got ${req.seeds.length}`;
  if (req.seeds.some((x) => !Number.isSafeInteger(x))) return 'seeds must be integers';
  const t = req.timeoutSeconds;
  if (t !== null && (!Number.isInteger(t) || t < 1 || t > MAX_TIMEOUT_SECONDS)) return `timeout must be whole seconds from 1 to ${MAX_TIMEOUT_SECONDS}, got ${t}`;
  if (active >= MAX_ACTIVE_JOBS) return `a session has at most ${MAX_ACTIVE_JOBS} jobs queued or running; wait for one to end or cancel one`;
  return null;
}

async function onRequest(s: SessionState, req: JobRequest): Promise<JobReply> {
  const views = (jobs: JobView[]): JobReply => ({ ok: true, jobs: jobs.map((j) => ({ ...j })) });
  if (req.action === 'status') {
    if (req.id === null) return views(s.jobs.all());
    const job = s.jobs.get(req.id);
    return job ? views([job]) : { ok: false, reason: `no job "${req.id}" in this session` };
  }
  if (req.action === 'cancel') {
    const job = s.jobs.get(req.id);
    if (!job) return { ok: false, reason: `no job "${req.id}" in this session` };
    // The executor kills it and reports the end, which is logged then.
    if (job.status === 'queued' || job.status === 'running') await getExternalWorkflowHandle(jobWorkflowId(s.id, job.id)).cancel().catch(() => undefined);
    return views([job]);
  }
  const refused = jobsClosed(s) ?? checkSubmit(req, s.jobs.active().length);
  if (refused) return { ok: false, reason: refused };
  return views([await queueJob(s, { ...req, judge: null })]);
}

/** What a job runs: an agent's command, or a research experiment's judge run. */
export type JobSpec = Omit<Extract<JobRequest, { action: 'submit' }>, 'action'> & { judge: JudgeRun | null };

/**
 * Logs a checked job's JobQueued and starts its workflow. `queued` runs in that append's commit,
 * so whatever the caller keeps of the job (a ledger row) exists before any report of it can.
 */
export async function queueJob(s: SessionState, spec: JobSpec, queued?: (job: JobView) => void): Promise<JobView> {
  const { command, cpus, seeds, timeoutSeconds, judge } = spec;
  const executor = spec.executor ?? 'local';
  const job: JobView = { id: '', command, cpus, seeds, timeoutSeconds, status: 'queued', exitCode: null, seconds: null, reason: '', preemptions: 0 };
  await s.emit(() => {
    job.id = s.jobs.nextId();
    return [{ type: 'JobQueued', jobId: job.id, command, cpus, seeds, timeoutSeconds, executor }];
  }, () => {
    s.jobs.add(job);
    queued?.(job);
  });
  const host = s.host ?? DEFAULT_HOST_ID;
  try {
    await startChild(jobWorkflow, {
      workflowId: jobWorkflowId(s.id, job.id),
      args: [{ sessionId: s.id, jobId: job.id, command, cpus, seeds, timeoutSeconds, ...(judge && { judge }), taskQueue: hostTaskQueue(workflowInfo().taskQueue, host), executor }],
      // It reports by signal to whichever run of the session is current.
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  } catch (e) {
    await onReport(s, { jobId: job.id, kind: 'ended', outcome: 'failed', exitCode: null, seconds: 0, logTail: '', reason: `the job could not start: ${(e as Error).message}`, preemptions: 0 });
  }
  return job;
}

async function onReport(s: SessionState, r: JobReport): Promise<void> {
  const job = s.jobs.get(r.jobId);
  if (s.closed || !job) return;
  // Checked in turn with other appends: the executor and the job's workflow may both report one end.
  let fresh = false;
  if (r.kind === 'started') {
    await s.emit(() => {
      fresh = job.status === 'queued';
      return fresh ? [{ type: 'JobStarted', jobId: job.id, hostId: r.hostId }] : [];
    }, () => fresh && s.jobs.start(job));
    return;
  }
  if (r.kind === 'preempted') {
    // Only a live job's: a report that comes after its end changes nothing.
    const { requeued, reason, slurmId } = r;
    await s.emit(() => {
      fresh = job.status === 'queued' || job.status === 'running';
      return fresh ? [{ type: 'JobPreempted', jobId: job.id, requeued, reason, slurmId }] : [];
    }, () => fresh && s.jobs.preempt(job));
    return;
  }
  const { outcome, exitCode, seconds, logTail, reason } = r;
  let experiment = null as { by: string | undefined; events: RecurEventInput[]; commit: () => void } | null;
  await s.emit(() => {
    // A job that already ended (reported, or cancelled by the session's end) changes nothing.
    fresh = job.status === 'queued' || job.status === 'running';
    if (!fresh) return [];
    // An experiment's ledger row goes in the same append as its job's end: never one without the other, never two.
    const by = s.research?.get(job.id)?.by;
    const row = s.research?.experimentEnded(job.id, r);
    experiment = row ? { by, ...row } : null;
    return [{ type: 'JobEnded', jobId: job.id, outcome, exitCode, seconds, logTail, reason }, ...(row?.events ?? [])];
  }, () => {
    if (!fresh) return;
    s.jobs.end(job, outcome, exitCode, seconds, reason);
    experiment?.commit();
  });
  if (experiment) await tellAsker(s, experiment.by, { kind: 'ended', jobId: job.id, message: experimentEndMessage(s.id, job.id, experiment.events) });
}
