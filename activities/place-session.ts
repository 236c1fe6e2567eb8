import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { WithStartWorkflowOperation, type Client } from '@temporalio/client';
import { hostRegistryId } from '../workflows/hosts/host-queue';
import { placeSessionsUpdate, type PlaceReply, type PlaceRequest } from '../workflows/hosts/host-messages';

/** The registry workflow's type, by name: activities do not load workflow code. */
export const HOST_REGISTRY_WORKFLOW = 'hostRegistryWorkflow';
/** Asks per update: a wave of spawns, in a payload far below Temporal's limits. */
const MAX_BATCH = 200;

interface Ask {
  request: PlaceRequest;
  resolve(reply: PlaceReply): void;
  reject(e: unknown): void;
}

/**
 * Placement asks the task queue's host registry (workflows/hosts/host-registry.ts), starting it
 * if no host has beaten yet. The asking worker's own host counts as live: it is running this.
 * A worker has one update in flight per queue; the asks that arrive meanwhile go in the next.
 */
export function createPlacementActivities(deps: { client: Client; hostId: string }) {
  const waiting = new Map<string, Ask[]>();
  const send = (taskQueue: string, requests: PlaceRequest[]): Promise<PlaceReply[]> =>
    deps.client.workflow.executeUpdateWithStart(placeSessionsUpdate, {
      args: [requests],
      // Retried asks are told apart by their keys, inside the registry.
      updateId: `place:${deps.hostId}:${randomUUID()}`,
      startWorkflowOperation: new WithStartWorkflowOperation(HOST_REGISTRY_WORKFLOW, {
        workflowId: hostRegistryId(taskQueue), taskQueue, args: [[]], workflowIdConflictPolicy: 'USE_EXISTING',
      }),
    });
  const drain = async (taskQueue: string, queue: Ask[]): Promise<void> => {
    while (queue.length > 0) {
      const batch = queue.splice(0, MAX_BATCH);
      try {
        const replies = await send(taskQueue, batch.map((a) => a.request));
        batch.forEach((a, i) => a.resolve(replies[i]));
      } catch (e) {
        for (const a of batch) a.reject(e);
      }
    }
    waiting.delete(taskQueue);
  };
  return {
    placeSession(input: { sessionId: string; key: string; exclude?: string | null }): Promise<PlaceReply> {
      const taskQueue = Context.current().info.taskQueue;
      return new Promise((resolve, reject) => {
        const request = { key: input.key, asker: deps.hostId, exclude: input.exclude ?? null };
        const queue = waiting.get(taskQueue);
        if (queue) return void queue.push({ request, resolve, reject });
        const fresh = [{ request, resolve, reject }];
        waiting.set(taskQueue, fresh);
        void drain(taskQueue, fresh);
      });
    },
  };
}
