import type { Client } from '@temporalio/client';
import type { RecurConfig } from '../../config';
import { createJobActivities, type JobActivities, type JobDeps } from '../../activities/jobs/run-job';
import { slurmCli } from '../../activities/jobs/slurm-cli';
import { createSlurmJobActivities, type SlurmJobDeps } from '../../activities/jobs/slurm-executor';
import { createVirtualJobActivities } from '../../activities/jobs/virtual-executor';
import { jobReportSignal } from '../../workflows/jobs/job-messages';

type Reports = Pick<SlurmJobDeps, 'onStarted' | 'onEnded' | 'onPreempted'>;

/** The executor's reports, as signals to each job's session: it logs JobStarted, JobPreempted and JobEnded in the order they were made. */
export function jobReports(client: Client, hostId: string): Reports {
  const session = (sessionId: string) => client.workflow.getHandle(sessionId);
  return {
    onStarted: (job) => session(job.sessionId).signal(jobReportSignal, { jobId: job.jobId, kind: 'started', hostId }),
    onEnded: (job, result) => session(job.sessionId).signal(jobReportSignal, { jobId: job.jobId, kind: 'ended', ...result }),
    onPreempted: (job, p) => session(job.sessionId).signal(jobReportSignal, { jobId: job.jobId, kind: 'preempted', requeued: p.requeued, reason: p.reason, slurmId: p.slurmId }),
  };
}

/** This host's job executor (RECUR_JOB_EXECUTOR). */
export function hostJobActivities(config: RecurConfig, client: Client, base: Pick<JobDeps, 'logFile' | 'launch' | 'env'>): JobActivities {
  const reports = jobReports(client, config.hostId);
  if (config.worker.jobExecutor === 'local') return createJobActivities({ ...base, ...reports, cpus: config.worker.jobCpus });
  if (config.worker.jobExecutor === 'virtual') return createVirtualJobActivities({ ...base, ...reports, cpus: config.worker.jobCpus });
  return createSlurmJobActivities({ ...base, ...reports, slurm: slurmCli(), partition: config.worker.slurmPartition });
}
