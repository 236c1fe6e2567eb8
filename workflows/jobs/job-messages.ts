import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { RunJobInput, RunJobResult } from '../../activities/jobs/run-job';

/*
 * Jobs (docs/jobs.md): the kernel asks by update (it needs the job's id, or the refusal); the
 * executor reports by signal (a fact it already decided), which is also what wakes an idle session.
 */

/** What runs a host's jobs (RECUR_JOB_EXECUTOR): its host's bridge names it in each submit. */
export type JobExecutor = 'local' | 'slurm' | 'virtual';

/** A job id as job-book.ts numbers them; anything else names no log file on the host and no experiment's parent. */
export const JOB_ID = /^job-[1-9][0-9]{0,8}$/;

export type JobStatus = 'queued' | 'running' | RunJobResult['outcome'];

/** A job as the kernel sees it (jobs.status). */
export interface JobView {
  id: string;
  command: string;
  cpus: number;
  seeds: number[];
  timeoutSeconds: number | null;
  status: JobStatus;
  exitCode: number | null;
  seconds: number | null;
  reason: string;
  /** Runs the executor stopped and ran again from the start (Slurm's preemption); absent in views carried from before it counted them. */
  preemptions?: number;
}

export type JobRequest =
  | { action: 'submit'; command: string; cpus: number; seeds: number[]; timeoutSeconds: number | null; executor?: JobExecutor }
  | { action: 'status'; id: string | null }
  | { action: 'cancel'; id: string };
export type JobReply = { ok: true; jobs: JobView[] } | { ok: false; reason: string };
export const jobsUpdate = defineUpdate<JobReply, [JobRequest]>('jobs');

export type JobReport = { jobId: string } & (
  | { kind: 'started'; hostId: string }
  | { kind: 'preempted'; requeued: boolean; reason: string; slurmId: string | null }
  | ({ kind: 'ended' } & RunJobResult)
);
export const jobReportSignal = defineSignal<[JobReport]>('jobReport');

/** What the job workflow runs, and where: the session's host's queue, where its workspace and sandbox are. */
export interface JobWorkflowInput extends RunJobInput {
  taskQueue: string;
  /** Absent in jobs started before the executor was named: local. */
  executor?: JobExecutor;
}
