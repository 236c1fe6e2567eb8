import { sleep } from '@temporalio/workflow';

/**
 * Recur's workflows as a careless change could leave them: a timer first where the recorded
 * histories start with an activity, and a registry that ends where it started a timer. Replaying
 * them through this must fail (tests/unit/workflow-replay.test.ts).
 */
export async function agentSessionWorkflow(): Promise<void> {
  await sleep(1000);
}

export async function harnessWorkflow(): Promise<void> {
  await sleep(1000);
}

export async function jobWorkflow(): Promise<void> {
  await sleep(1000);
}

export async function hostRegistryWorkflow(): Promise<void> {
  return undefined;
}
