import { getExternalWorkflowHandle } from '@temporalio/workflow';
import type { ResearchBook } from '../research/research-book';
import type { SessionState } from '../session-state';
import { jobWorkflowId } from './job-workflow';

/** At the session's end: every job still queued or running is logged as cancelled, then stopped. */
export async function endJobs(s: SessionState): Promise<void> {
  const reason = 'the session ended';
  let ending = s.jobs.active();
  let rows: ReturnType<ResearchBook['experimentEnded']>[] = [];
  if (ending.length === 0) return;
  if (!s.closed) {
    await s.emit(() => {
      // Read in turn with other appends: a report logged meanwhile has ended its job already.
      ending = s.jobs.active();
      rows = ending.map((j) => s.research?.experimentEnded(j.id, { outcome: 'cancelled', reason, logTail: '' }) ?? null);
      return ending.flatMap((j, i) => [{ type: 'JobEnded' as const, jobId: j.id, outcome: 'cancelled' as const, exitCode: null, seconds: 0, logTail: '', reason }, ...(rows[i]?.events ?? [])]);
    }, () => ending.forEach((j, i) => {
      s.jobs.end(j, 'cancelled', null, 0, reason);
      rows[i]?.commit();
    }));
  }
  for (const j of ending) await getExternalWorkflowHandle(jobWorkflowId(s.id, j.id)).cancel().catch(() => undefined);
}
