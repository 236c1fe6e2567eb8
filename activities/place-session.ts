import { Context } from '@temporalio/activity';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { hostRegistryId } from '../workflows/hosts/host-queue';
import { placeSessionUpdate, type PlaceReply } from '../workflows/hosts/host-messages';

/** The registry workflow's type, by name: activities do not load workflow code. */
export const HOST_REGISTRY_WORKFLOW = 'hostRegistryWorkflow';

/**
 * Placement asks the task queue's host registry (workflows/hosts/host-registry.ts), starting it
 * if no host has beaten yet. The asking worker's own host counts as live: it is running this.
 */
export function createPlacementActivities(deps: { client: Client; hostId: string }) {
  return {
    async placeSession(input: { sessionId: string; key: string; exclude?: string | null }): Promise<PlaceReply> {
      const taskQueue = Context.current().info.taskQueue;
      return deps.client.workflow.executeUpdateWithStart(placeSessionUpdate, {
        args: [{ sessionId: input.sessionId, asker: deps.hostId, exclude: input.exclude ?? null }],
        updateId: `place:${input.key}`,
        startWorkflowOperation: new WithStartWorkflowOperation(HOST_REGISTRY_WORKFLOW, {
          workflowId: hostRegistryId(taskQueue), taskQueue, args: [[]], workflowIdConflictPolicy: 'USE_EXISTING',
        }),
      });
    },
  };
}
