export interface RestartPolicy {
  initialMs: number;
  maxMs: number;
  /** A run at least this long counts as healthy: the next crash restarts after `initialMs` again. */
  resetAfterMs: number;
}

export const WORKER_RESTART_POLICY: RestartPolicy = { initialMs: 500, maxMs: 10_000, resetAfterMs: 60_000 };

/**
 * How long to wait before restarting a process that just exited after `uptimeMs`, given the
 * delay used before its previous restart (null: none yet). Doubles per quick crash, capped. Pure.
 */
export function nextRestartDelay(previousMs: number | null, uptimeMs: number, policy: RestartPolicy = WORKER_RESTART_POLICY): number {
  if (previousMs === null || uptimeMs >= policy.resetAfterMs) return policy.initialMs;
  return Math.min(previousMs * 2, policy.maxMs);
}
