import type { Client } from '@temporalio/client';
import type { RecurConfig } from '../../config';
import { createJobActivities, type JobActivities, type JobDeps } from '../../activities/jobs/run-job';
import { slurmCli } from '../../activities/jobs/slurm-cli';
import { createSlurmJobActivities } from '../../activities/jobs/slurm-executor';
import { jobReportSignal } from '../../workflows/jobs/job-messages';

/**
 * This host's job executor (RECUR_JOB_EXECUTOR), reporting to each job's session by signal: the
 * session logs JobStarted, JobPreempted and JobEnded in the order the executor made them.
 */
export function hostJobActivities(config: RecurConfig, client: Client, base: Pick<JobDeps, 'logFile' | 'launch' | 'env'>): JobActivities {
  const session = (sessionId: string) => client.workflow.getHandle(sessionId);
  const reports = {
    onStarted: (job: { sessionId: string; jobId: string }) => session(job.sessionId).signal(jobReportSignal, { jobId: job.jobId, kind: 'started', hostId: config.hostId }),
    onEnded: (job: { sessionId: string; jobId: string }, result: Parameters<JobDeps['onEnded']>[1]) => session(job.sessionId).signal(jobReportSignal, { jobId: job.jobId, kind: 'ended', ...result }),
  };
  if (config.worker.jobExecutor === 'local') return createJobActivities({ ...base, ...reports, cpus: config.worker.jobCpus });
  return createSlurmJobActivities({
    ...base, ...reports, slurm: slurmCli(), partition: config.worker.slurmPartition,
    onPreempted: (job, p) => session(job.sessionId).signal(jobReportSignal, { jobId: job.jobId, kind: 'preempted', requeued: p.requeued, reason: p.reason, slurmId: p.slurmId }),
  });
}
