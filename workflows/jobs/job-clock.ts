/*
 * The virtual executor's clock (RECUR_JOB_EXECUTOR=virtual, docs/jobs.md): a job's end is held
 * on a durable timer until the run time it reported has passed on the workflow clock. Workflow
 * time is the server's, so a time-skipping server jumps over the wait when nothing else runs.
 * Deterministic code.
 */
import { isCancellation, sleep } from '@temporalio/workflow';
import type { RunJobResult } from '../../activities/jobs/run-job';

/**
 * `result` once its reported `seconds` have passed since `startedAt`, cut at the job's timeout
 * as a real run would have been; a cancellation while it waits ends it cancelled.
 */
export async function onTheClock(result: RunJobResult, startedAt: number, timeoutSeconds: number | null): Promise<RunJobResult> {
  const over = timeoutSeconds !== null && result.seconds > timeoutSeconds;
  const seconds = over ? timeoutSeconds : result.seconds;
  try {
    await sleep(Math.max(startedAt + seconds * 1000 - Date.now(), 0));
  } catch (e) {
    if (!isCancellation(e)) throw e;
    return { ...result, outcome: 'cancelled', exitCode: null, reason: 'cancelled', seconds: (Date.now() - startedAt) / 1000 };
  }
  if (over) return { ...result, outcome: 'timed_out', exitCode: null, seconds, reason: `killed after its ${timeoutSeconds} s timeout` };
  return result;
}
