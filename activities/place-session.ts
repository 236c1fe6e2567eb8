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
  const send = async (taskQueue: string, requests: PlaceRequest[]): Promise<PlaceReply[]> => {
    try {
      return await deps.client.workflow.executeUpdateWithStart(placeSessionsUpdate, {
        args: [requests],
        // Retried asks are told apart by their keys, inside the registry.
        updateId: `place:${deps.hostId}:${randomUUID()}`,
        startWorkflowOperation: new WithStartWorkflowOperation(HOST_REGISTRY_WORKFLOW, {
          workflowId: hostRegistryId(taskQueue), taskQueue, args: [[]], workflowIdConflictPolicy: 'USE_EXISTING',
        }),
      });
    } catch (e) {
      await endIfStuck(deps.client, hostRegistryId(taskQueue));
      throw e;
    }
  };
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

/**
 * Ends the registry's run when its workflow task keeps failing, so that the retried ask starts a
 * new one: a run today's worker cannot replay would otherwise refuse every ask until it ended.
 * The SDK cannot replay a registry whose update arrived with beats in the task after a timed-out
 * one (docs/hosts.md), nor would it a run of older code after a careless deploy. Its state is
 * soft, rebuilt by the next beats. The SDK's own way, failing the run on a nondeterminism error
 * (the worker's workflowFailureErrorTypes), is refused by the server for a history with updates.
 */
async function endIfStuck(client: Client, workflowId: string): Promise<void> {
  const run = await client.workflow.getHandle(workflowId).describe().catch(() => null);
  if (run?.status.name !== 'RUNNING' || (run.raw.pendingWorkflowTask?.attempt ?? 0) < 2) return;
  // By run id: a run another worker has started meanwhile is left alone.
  await client.workflow.getHandle(workflowId, run.runId).terminate('its workflow task keeps failing; a new registry takes the asks').catch(() => undefined);
}
