import { defineQuery, defineUpdate } from '@temporalio/workflow';

/*
 * Approvals live in the requesting session's workflow. Requests are updates from this session's
 * own host side (a bridge op, a host activity): each needs an answer, and a request is logged
 * before it returns. Waiting is a query the host repeats: a wait of hours adds nothing to the
 * history. The operator's decision is an update too (from the daemon), so the CLI hears whether
 * it answered an open approval or one already decided.
 */

export interface ApprovalRequest {
  kind: string;
  detail: string;
  /** Extra evidence event ids; the session's last logged event (the running cell's) is always added. */
  evidence?: string[];
  /** The requester's idempotency key (a bridge call's rid): the same key is answered by the same approval. */
  key: string | null;
}

export type ApprovalStatus = 'allowed' | 'pending' | 'approved' | 'denied' | 'refused';

export interface ApprovalAnswer {
  /** The ApprovalRequested eventId; null when the policy allowed it without asking (nothing logged). */
  id: string | null;
  status: ApprovalStatus;
  kind: string;
  /** As logged (clipped to its field limit). */
  detail: string;
  by?: string;
  reason?: string;
  /** An approved request stands for one action: set once a host op has acted on it (useApproval). */
  used?: boolean;
}

export interface OpenApproval {
  id: string;
  sessionId: string;
  kind: string;
  detail: string;
  /** Workflow time of the request, UTC milliseconds. */
  requestedAt: number;
}

export const requestApprovalUpdate = defineUpdate<ApprovalAnswer, [ApprovalRequest]>('requestApproval');
/** The approval's answer now (pending until decided); null for an id this session never issued. */
export const getApprovalQuery = defineQuery<ApprovalAnswer | null, [string]>('getApproval');

export interface ApprovalDecision {
  id: string;
  decision: 'approved' | 'denied';
  by: string;
  reason: string;
}
export type DecideReply = { ok: true; answer: ApprovalAnswer } | { ok: false; reason: string };
export const decideApprovalUpdate = defineUpdate<DecideReply, [ApprovalDecision]>('decideApproval');

export type UseReply = { ok: true; answer: ApprovalAnswer } | { ok: false; reason: string };
/**
 * From a host op about to act on a decided approval: checks it was for this very kind and detail
 * and, when approved, spends it, so one yes is one action. Keyed by the kernel call's rid, so the
 * same call repeated after a worker restart gets the first answer.
 */
export const useApprovalUpdate = defineUpdate<UseReply, [{ id: string; kind: string; detail: string }]>('useApproval');

export const getApprovalsQuery = defineQuery<OpenApproval[]>('getApprovals');
