import { hostname } from 'node:os';
import type { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { temporal } from '@temporalio/proto';

/** How a worker process names itself to Temporal; the daemon names a dead worker the same way. */
export const workerIdentity = (pid: number = process.pid): string => `recur-worker ${pid}@${hostname()}`;

/**
 * Where the daemon names, to the worker it starts after one died, the dead one's identity: a
 * handoff between the two processes (like their IPC channel), not a setting.
 */
export const REPLACES_ENV = 'RECUR_WORKER_REPLACES';

const STARTED = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;

export interface LostAttempt {
  workflowId: string;
  activityId: string;
  activityType: string;
}

/**
 * Ends, at once, the activity attempts a dead worker (`dead`, its identity) had started on this
 * task queue, and takes every running session of the queue off the dead worker's sticky queue.
 * Temporal would see the attempts lost only when their heartbeat timeout ran out (10 s); failed
 * now, each is retried at once, and the retry picks up where the attempt was as after any worker
 * loss (a cell is asked of its kernel, never sent twice). A live worker of the queue that held one
 * of those sessions replays its history at its next task. Only the daemon knows a worker is dead
 * (it saw the process exit), so only it names one.
 */
export async function failLostAttempts(client: Client, taskQueue: string, dead: string): Promise<LostAttempt[]> {
  const failed: LostAttempt[] = [];
  for await (const run of client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'` })) {
    const { raw } = await client.workflow.getHandle(run.workflowId, run.runId).describe();
    // The dead worker may hold this run in its cache: its next workflow task would wait on that
    // worker's sticky queue (10 s) before any other worker got it.
    await client.workflowService.resetStickyTaskQueue({ namespace: client.options.namespace, execution: { workflowId: run.workflowId, runId: run.runId } });
    for (const a of raw.pendingActivities ?? []) {
      if (a.state !== STARTED || a.lastWorkerIdentity !== dead || !a.activityId) continue;
      const lost = { workflowId: run.workflowId, activityId: a.activityId, activityType: a.activityType?.name ?? '?' };
      try {
        // Retried at once, not after the retry policy's interval: the attempt was lost, nothing failed to back
        // off from. (Temporal reads a zero delay as no retry left, hence the millisecond.)
        const failure = ApplicationFailure.create({ message: `its worker (${dead}) died`, type: 'WorkerLost', nextRetryDelay: 1 });
        await client.activity.fail({ workflowId: run.workflowId, runId: run.runId, activityId: a.activityId }, failure);
        failed.push(lost);
      } catch {
        // Already finished or timed out meanwhile: nothing is left to end.
      }
    }
  }
  return failed;
}
