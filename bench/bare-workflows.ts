/*
 * Bare Temporal workflows, the baselines of session-start and fan-out: what the same shape costs
 * with nothing of Recur around it. Bundled for the bench's bare worker (bare-worker.ts), so
 * deterministic workflow code only. Times are the workflow's clock, as Recur's event ts are.
 */
import { proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';
import type { BareActivities } from './bare-activities';

const { step } = proxyActivities<BareActivities>({ startToCloseTimeout: '1 minute' });

/** A session start's shape without Recur: three activities in a row, as a Recur session logs SessionStarted, calls its model and logs ModelCalled. */
export async function bareStartWorkflow(): Promise<void> {
  for (let i = 0; i < 3; i++) await step();
}

export interface BareChildTimes {
  started: number;
  answered: number;
}

/** A sub-agent's shape without Recur: started, one activity (its answer), done. */
export async function bareChildWorkflow(): Promise<BareChildTimes> {
  const started = Date.now();
  await step();
  return { started, answered: Date.now() };
}

/** `n` bare children started at once from one workflow task, as fast as Temporal allows; each child's times, and when the parent began. */
export async function bareParentWorkflow(n: number): Promise<{ t0: number; children: BareChildTimes[] }> {
  const t0 = Date.now();
  const { workflowId } = workflowInfo();
  const handles = await Promise.all(Array.from({ length: n }, (_, i) => startChild(bareChildWorkflow, { workflowId: `${workflowId}-c${i}` })));
  return { t0, children: await Promise.all(handles.map((h) => h.result())) };
}
