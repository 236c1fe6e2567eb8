import { proxyActivities } from '@temporalio/workflow';
import type { SessionActivities } from '../activities/session-activities';

/**
 * Activity options per kind of work. A cell is never retried by Temporal: re-running code with
 * side effects is the model's call, so a lost cell comes back as `interrupted`. Model calls and
 * appends are safe to repeat (same input, same bytes), so they retry.
 */
export function sessionActivities(cellTimeoutSeconds: number) {
  const log = proxyActivities<Pick<SessionActivities, 'appendEvents' | 'shutdownKernel'>>({
    startToCloseTimeout: '1 minute',
    retry: { maximumAttempts: 20, initialInterval: '200ms', maximumInterval: '10s' },
  });
  const model = proxyActivities<Pick<SessionActivities, 'callModel'>>({
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: '20 seconds',
    // Providers retry 429/5xx themselves; this covers a worker lost mid-call.
    retry: { maximumAttempts: 3 },
  });
  const cells = proxyActivities<Pick<SessionActivities, 'runCell'>>({
    // The activity interrupts the cell itself at the timeout; the margin covers kernel start-up.
    startToCloseTimeout: `${cellTimeoutSeconds + 120} seconds`,
    // The activity heartbeats every 5 s; a lost worker's cell is reported within this.
    heartbeatTimeout: '15 seconds',
    retry: { maximumAttempts: 1 },
  });
  // Proxies have no own keys to spread: name each activity.
  const snapshots = proxyActivities<Pick<SessionActivities, 'snapshotKernel'>>({
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '1 minute',
    retry: { maximumAttempts: 2 },
  });
  return {
    snapshotKernel: snapshots.snapshotKernel,
    appendEvents: log.appendEvents,
    shutdownKernel: log.shutdownKernel,
    callModel: model.callModel,
    runCell: cells.runCell,
  };
}
