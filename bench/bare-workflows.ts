/*
 * Bare Temporal workflows, the baselines of session-start: what the same shape costs
 * with nothing of Recur around it. Bundled for the bench's bare worker (bare-worker.ts), so
 * deterministic workflow code only. Times are the workflow's clock, as Recur's event ts are.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { BareActivities } from './bare-activities';

const { step } = proxyActivities<BareActivities>({ startToCloseTimeout: '1 minute' });

/** A session start's shape without Recur: three activities in a row, as a Recur session logs SessionStarted, calls its model and logs ModelCalled. */
export async function bareStartWorkflow(): Promise<void> {
  for (let i = 0; i < 3; i++) await step();
}
