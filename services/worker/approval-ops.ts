import type { HostBridge } from '../host-bridge';
import type { ApprovalGate } from './approval-gate';
import { retryableWhenTransient } from './bridge-ops';

/** Longest one `approval.wait` holds its request; the kernel loops in long polls. */
const MAX_WAIT_S = 30;

/**
 * `approval.wait` from a kernel: the answer to one of its own session's approvals, waiting while
 * it is pending. The kernel asks after an op answered with a PendingApproval, then calls the op again.
 */
export function registerApprovalOps(bridge: HostBridge, gate: ApprovalGate): void {
  // While no worker serves the session (a restart), the query fails: a 503, which the kernel repeats.
  bridge.handle('approval.wait', retryableWhenTransient(async (sessionId, args, { signal }) =>
    gate.wait(sessionId, String(args.id ?? ''), Math.min(Math.max(Number(args.wait) || 0, 0), MAX_WAIT_S) * 1000, signal)));
}
