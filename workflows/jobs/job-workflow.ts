/*
 * One job, run by its session's host's executor and reported back to the session by signal.
 * A workflow of its own, not an activity of the session's: it outlives the session's runs
 * (continue-as-new), and the session never waits on it, so it never polls. Deterministic code.
 */
import { ActivityCancellationType, ActivityFailure, CancellationScope, getExternalWorkflowHandle, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { createJobActivities, RunJobResult } from '../../activities/jobs/run-job';
import { onTheClock } from './job-clock';
import { jobReportSignal, type JobWorkflowInput } from './job-messages';

/** A job's workflow id: `#` is in no agent name, so it never clashes with a sub-agent's session id. */
export const jobWorkflowId = (sessionId: string, jobId: string): string => `${sessionId}#${jobId}`;

type JobActivities = ReturnType<typeof createJobActivities>;

export async function jobWorkflow(input: JobWorkflowInput): Promise<void> {
  const { taskQueue, executor, ...job } = input;
  const { runJob } = proxyActivities<JobActivities>({
    taskQueue,
    // The wait for CPU slots counts too; a lost host shows as a missed heartbeat, long before this.
    startToCloseTimeout: '30 days',
    heartbeatTimeout: '30 seconds',
    // A job is an experiment with effects: run again, it would be a second trial, so a local one
    // never is. A Slurm job outlives the worker that follows it, and a retried attempt adopts it
    // (found by its name) instead of submitting another, so a lost worker's attempt is retried.
    retry: executor === 'slurm' ? { maximumAttempts: 10, initialInterval: '5 seconds', maximumInterval: '1 minute' } : { maximumAttempts: 1 },
    // The end reported is the process's, after the executor has killed it.
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  });
  const { cancelJob } = proxyActivities<JobActivities>({ taskQueue, startToCloseTimeout: '30 seconds', retry: { maximumAttempts: 3 } });
  const startedAt = Date.now();
  const running = runJob(job);
  // A cancellation reaches runJob only with its next heartbeat to the server (up to 24 s away):
  // the host is told at once as well, as an operator's interrupt reaches a cell.
  void CancellationScope.current().cancelRequested.catch(() => CancellationScope.nonCancellable(() => cancelJob({ sessionId: job.sessionId, jobId: job.jobId })).catch(() => undefined));
  let result: RunJobResult;
  try {
    result = await running;
  } catch (e) {
    if (isCancellation(e)) result = { outcome: 'cancelled', exitCode: null, seconds: 0, logTail: '', reason: 'cancelled', preemptions: 0 };
    else if (e instanceof ActivityFailure) result = { outcome: 'failed', exitCode: null, seconds: 0, logTail: '', reason: `the executor could not run it: ${e.cause?.message ?? e.message}`, preemptions: 0 };
    else throw e;
  }
  // A judge's timeout stops a judge stuck, in real time (runJob); the runs it stands for are the task's to size.
  if (executor === 'virtual' && result.outcome !== 'cancelled') result = await onTheClock(result, startedAt, job.judge ? null : job.timeoutSeconds);
  // The executor reported the end itself, in order with the next job's start (the virtual one
  // leaves it to this, after its hold); this one covers the ends it could not report (a lost
  // worker, a job it refused), and the session ignores a second.
  // A session that has ended takes no more signals; it logged this job's end when it ended.
  await CancellationScope.nonCancellable(() => getExternalWorkflowHandle(job.sessionId).signal(jobReportSignal, { jobId: job.jobId, kind: 'ended', ...result }))
    .catch(() => undefined);
}
