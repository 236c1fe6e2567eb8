import type { HostBridge } from '../host-bridge';
import type { ApprovalGate } from './approval-gate';

/** Longest one `approval.wait` holds its request; the kernel loops in long polls. */
const MAX_WAIT_S = 30;

/**
 * `approval.wait` from a kernel: the answer to one of its own session's approvals, waiting while
 * it is pending. The kernel asks after an op answered with a PendingApproval, then calls the op again.
 */
export function registerApprovalOps(bridge: HostBridge, gate: ApprovalGate): void {
  bridge.handle('approval.wait', async (sessionId, args) =>
    gate.wait(sessionId, String(args.id ?? ''), Math.min(Math.max(Number(args.wait) || 0, 0), MAX_WAIT_S) * 1000));
}
