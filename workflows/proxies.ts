import { patched, proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { SessionActivities } from '../activities/session-activities';

/** What the session workflow calls; gates run elsewhere (workflows/keep-going.ts). */
export type SessionActs = Omit<SessionActivities, 'runGate'>;
type KernelActivity = typeof KERNEL_ACTIVITIES[number];

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
export function sessionActivities(cellTimeoutSeconds: number): SessionActs {
  const log = proxyActivities<Pick<SessionActivities, 'appendEvents'>>(SHORT_CALL);
  const model = proxyActivities<Pick<SessionActivities, 'callModel'>>({
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: '10 seconds',
    // Providers retry 429/5xx themselves; this covers a worker lost mid-call.
    retry: { maximumAttempts: 3 },
  });
  const place = proxyActivities<Pick<SessionActivities, 'placeSession'>>({
    // One ask of the host registry; a retry is answered by the first attempt's choice (same key).
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 10, maximumInterval: '5s' },
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
  return {
    ...kernelActivities(cellTimeoutSeconds),
    placeSession: place.placeSession,
    prepareWorktree: worktrees.prepareWorktree,
    scanWorkspace: workspace.scanWorkspace,
    reserveTreeSession: tree.reserveTreeSession,
    chargeTreeBudget: budget.chargeTreeBudget,
    appendEvents: log.appendEvents,
    callModel: model.callModel,
  };
}

/** An append takes milliseconds; a lost worker's append (or kernel shutdown) is retried after this. */
const SHORT_CALL = {
  startToCloseTimeout: '15 seconds',
  retry: { maximumAttempts: 20, initialInterval: '200ms', maximumInterval: '10s' },
} as const;

/**
 * The kernel-bound activities, on `taskQueue`: the session's host's queue once it is placed
 * (workflows/placement.ts), the workflow's own before placement existed.
 */
export function kernelActivities(cellTimeoutSeconds: number, taskQueue?: string): Pick<SessionActivities, KernelActivity> {
  // On a host's queue, an attempt no worker takes within HOST_LOST_AFTER means the host is gone
  // (a restarted worker polls again within seconds): the workflow then re-homes the session.
  const on = taskQueue === undefined ? {} : { taskQueue, scheduleToStartTimeout: HOST_LOST_AFTER } as const;
  const cells = proxyActivities<Pick<SessionActivities, 'runCell'>>({
    ...on,
    // The activity interrupts the cell itself at the timeout; the margin covers kernel start-up.
    startToCloseTimeout: `${cellTimeoutSeconds + 120} seconds`,
    heartbeatTimeout: '10 seconds',
    // Retries cover a lost worker and a Jupyter server that is restarting.
    retry: { maximumAttempts: 8, initialInterval: '1 second', maximumInterval: '20 seconds' },
  });
  // Proxies have no own keys to spread: name each activity.
  const snapshots = proxyActivities<Pick<SessionActivities, 'snapshotKernel'>>({
    ...on,
    startToCloseTimeout: '10 minutes',
    heartbeatTimeout: '10 seconds',
    retry: { maximumAttempts: 2 },
  });
  const shutdown = proxyActivities<Pick<SessionActivities, 'shutdownKernel'>>({ ...on, ...SHORT_CALL });
  const kernel = proxyActivities<Pick<SessionActivities, 'interruptKernel'>>({
    ...on,
    // A REST call to the Jupyter server; an operator waits on it, so it gives up soon.
    startToCloseTimeout: '30 seconds',
    retry: { maximumAttempts: 3, initialInterval: '500ms' },
  });
  const loop = proxyActivities<Pick<SessionActivities, 'runSteps'>>({
    ...on,
    // Its heartbeat is what watches it; an allowance of slow model calls may run for hours.
    startToCloseTimeout: '24 hours',
    heartbeatTimeout: '10 seconds',
    // A later attempt adopts what the earlier one logged and resumes its cell (run-steps.ts).
    retry: { maximumAttempts: 8, initialInterval: '1 second', maximumInterval: '20 seconds' },
  });
  const stops = proxyActivities<Pick<SessionActivities, 'stopSteps'>>({ ...on, ...SHORT_CALL });
  return {
    runSteps: loop.runSteps,
    stopSteps: stops.stopSteps,
    runCell: cells.runCell,
    snapshotKernel: snapshots.snapshotKernel,
    shutdownKernel: shutdown.shutdownKernel,
    interruptKernel: kernel.interruptKernel,
  };
}

/** How long a kernel-bound activity may wait on its host's queue before the host counts as lost (docs/hosts.md). */
export const HOST_LOST_AFTER = '15 seconds' as const;

/** What a host's own task queue serves: kernel-bound work only; everything else goes to any worker. */
export const KERNEL_ACTIVITIES = ['runCell', 'snapshotKernel', 'shutdownKernel', 'interruptKernel', 'runSteps', 'stopSteps'] as const;
