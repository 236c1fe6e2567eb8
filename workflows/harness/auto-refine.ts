import { ActivityFailure, isCancellation, proxyActivities } from '@temporalio/workflow';
import type { createAutoRefineActivities } from '../../activities/harness/auto-refine-activity';
import type { SessionState } from '../session-state';
import { shouldAutoRefine } from './decide-auto-refine';

const { refineSession } = proxyActivities<ReturnType<typeof createAutoRefineActivities>>({
  // A refine is one refiner model call plus a few appends.
  startToCloseTimeout: '15 minutes',
  retry: { maximumAttempts: 2 },
});

/** Runs the refiner on this session when the cadence says so; a failed refine is skipped, never fatal. */
export async function maybeAutoRefine(s: SessionState): Promise<void> {
  const { input, turn: turnsDone } = s;
  if (!shouldAutoRefine(input, turnsDone)) return;
  // The refiner reads the recent turns from the log: the last cell's end is there first.
  await s.flush();
  try {
    await refineSession({ sessionId: input.sessionId, reason: `auto-refine after ${turnsDone} turns: review the recent turns` });
  } catch (e) {
    if (!(e instanceof ActivityFailure) || isCancellation(e)) throw e;
  }
}
