import { proxyActivities } from '@temporalio/workflow';

/** A one-activity workflow: proves a worker in the test can run workflows through the dev server. */
export async function smokeWorkflow(name: string): Promise<string> {
  const { greet } = proxyActivities<{ greet(name: string): Promise<string> }>({ startToCloseTimeout: '30s' });
  return greet(name);
}
