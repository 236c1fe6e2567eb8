import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { SessionActivities } from '../activities/session-activities';

/** The patch id that marks runs whose workspace scans are local activities. */
const LOCAL_SCAN_PATCH = 'local-workspace-scan';

/**
 * Activity options per kind of work. Every activity is safe to retry: model calls and appends
 * repeat the same input and bytes, and a retried cell asks the kernel what became of the first
 * attempt instead of sending the cell again (activities/run-cell.ts). Heartbeat timeouts are what
 * a worker SIGKILL costs before the retry starts on another (or the restarted) worker.
 *
 * Appends stay activities: the batch's timestamps come from the workflow's clock, which a
 * retried workflow task reads anew, so only an input recorded in history before the write keeps
 * a retried append byte-identical (docs/performance.md).
 */
export function sessionActivities(cellTimeoutSeconds: number) {
  const log = proxyActivities<Pick<SessionActivities, 'appendEvents' | 'shutdownKernel'>>({
    // An append takes milliseconds; a lost worker's append is retried after this.
    startToCloseTimeout: '15 seconds',
    retry: { maximumAttempts: 20, initialInterval: '200ms', maximumInterval: '10s' },
  });
  const model = proxyActivities<Pick<SessionActivities, 'callModel'>>({
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: '10 seconds',
    // Providers retry 429/5xx themselves; this covers a worker lost mid-call.
    retry: { maximumAttempts: 3 },
  });
  const cells = proxyActivities<Pick<SessionActivities, 'runCell'>>({
    // The activity interrupts the cell itself at the timeout; the margin covers kernel start-up.
    startToCloseTimeout: `${cellTimeoutSeconds + 120} seconds`,
    heartbeatTimeout: '10 seconds',
    // Retries cover a lost worker and a Jupyter server that is restarting.
    retry: { maximumAttempts: 8, initialInterval: '1 second', maximumInterval: '20 seconds' },
  });
  // Proxies have no own keys to spread: name each activity.
  const snapshots = proxyActivities<Pick<SessionActivities, 'snapshotKernel'>>({
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '10 seconds',
    retry: { maximumAttempts: 2 },
  });
  const tree = proxyActivities<Pick<SessionActivities, 'reserveTreeSession'>>({
    // One update on the root; a retry is answered by the first attempt's outcome (same update id).
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 10, maximumInterval: '5s' },
  });
  const budget = proxyActivities<Pick<SessionActivities, 'chargeTreeBudget'>>({
    // The root may hold an ask until calls in flight elsewhere in the tree are reported: as long as a model call.
    startToCloseTimeout: '20 minutes',
    retry: { maximumAttempts: 10, maximumInterval: '5s' },
  });
  const worktrees = proxyActivities<Pick<SessionActivities, 'prepareWorktree'>>({
    // A checkout of the whole repository; repeating it keeps the first one's worktree.
    startToCloseTimeout: '10 minutes',
    retry: { maximumAttempts: 3 },
  });
  // A rescan is a stat walk; the first scan of a large workspace that is no git checkout hashes every file.
  const scanOptions = { startToCloseTimeout: '10 minutes', retry: { maximumAttempts: 5, initialInterval: '1 second' } } as const;
  // A local activity: run inside the workflow task, it costs a step no server round trip and no
  // workflow task of its own. Its retry, even in a later workflow task, is answered by its key.
  // Runs from before it was local keep the activity (their history has it); asked once per run.
  const workspace = patched(LOCAL_SCAN_PATCH)
    ? proxyLocalActivities<Pick<SessionActivities, 'scanWorkspace'>>(scanOptions)
    // The activity beats while git runs: a lost worker's scan is retried after this, not after the 10 minutes.
    : proxyActivities<Pick<SessionActivities, 'scanWorkspace'>>({ ...scanOptions, heartbeatTimeout: '10 seconds' });
  const kernel = proxyActivities<Pick<SessionActivities, 'interruptKernel'>>({
    // A REST call to the Jupyter server; an operator waits on it, so it gives up soon.
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 3, initialInterval: '500ms' },
  });
  return {
    interruptKernel: kernel.interruptKernel,
    prepareWorktree: worktrees.prepareWorktree,
    scanWorkspace: workspace.scanWorkspace,
    reserveTreeSession: tree.reserveTreeSession,
    chargeTreeBudget: budget.chargeTreeBudget,
    snapshotKernel: snapshots.snapshotKernel,
    appendEvents: log.appendEvents,
    shutdownKernel: log.shutdownKernel,
    callModel: model.callModel,
    runCell: cells.runCell,
  };
}
