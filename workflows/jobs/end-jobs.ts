import { getExternalWorkflowHandle } from '@temporalio/workflow';
import type { SessionState } from '../session-state';
import { jobWorkflowId } from './job-workflow';

/** At the session's end: every job still queued or running is logged as cancelled, then stopped. */
export async function endJobs(s: SessionState): Promise<void> {
  const reason = 'the session ended';
  let ending = s.jobs.active();
  if (ending.length === 0) return;
  if (!s.closed) {
    await s.emit(() => {
      // Read in turn with other appends: a report logged meanwhile has ended its job already.
      ending = s.jobs.active();
      return ending.map((j) => ({ type: 'JobEnded' as const, jobId: j.id, outcome: 'cancelled' as const, exitCode: null, seconds: 0, logTail: '', reason }));
    }, () => ending.forEach((j) => s.jobs.end(j, 'cancelled', null, 0, reason)));
  }
  for (const j of ending) await getExternalWorkflowHandle(jobWorkflowId(s.id, j.id)).cancel().catch(() => undefined);
}
