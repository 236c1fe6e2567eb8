/*
 * Approval requests, decisions and uses on the requesting session's workflow. Deterministic:
 * decisions come from the pure policy module, an open approval is workflow state (so a worker
 * restart while one is pending changes nothing), and every decision is logged before it applies.
 */
import { setHandler, sleep } from '@temporalio/workflow';
import { FIELD_LIMITS, clipText } from '../../schemas/field-limits';
import { guardSignal, guardUpdate } from '../guard-handler';
import type { SessionState } from '../session-state';
import {
  decideApprovalUpdate, getApprovalQuery, getApprovalsQuery, requestApprovalUpdate, useApprovalUpdate,
  type ApprovalAnswer, type ApprovalDecision, type ApprovalRequest, type DecideReply, type UseReply,
} from './approval-messages';
import type { PolicyEnd } from './approval-book';
import { DEFAULT_APPROVAL_POLICY, ciAnswer, decideApproval, type ApprovalPolicy } from './approval-policy';

export const policyOf = (s: SessionState): ApprovalPolicy => s.input.approvals ?? DEFAULT_APPROVAL_POLICY;

export function installApprovalHandlers(s: SessionState): void {
  // A wait carried over continue-as-new keeps its deadline, counted from the request.
  const policy = policyOf(s);
  if (policy.unattended) {
    for (const a of s.approvals.open.values()) {
      if (ciAnswer(policy, a.kind) === 'wait') void expireUnanswered(s, a.id, a.requestedAt + policy.ciWaitSeconds * 1000 - Date.now());
    }
  }
  setHandler(getApprovalsQuery, () => [...s.approvals.open.values()]);
  setHandler(requestApprovalUpdate, guardUpdate(s, (req) => requestApproval(s, req)));
  setHandler(getApprovalQuery, (id) => s.approvals.answer(id));
  setHandler(decideApprovalUpdate, guardUpdate(s, (d) => settle(s, d)));
  setHandler(useApprovalUpdate, ({ id, kind, detail }) => useApproval(s, id, kind, detail));
}

/** The use is not an event of its own: the action it allows is logged by whoever acts (a HarnessEdited, a connection). */
function useApproval(s: SessionState, id: string, kind: string, detail: string): UseReply {
  const a = s.approvals.answer(id);
  if (!a) return { ok: false, reason: `${s.id} issued no approval ${id}` };
  if (a.kind !== kind || a.detail !== clipText(detail, FIELD_LIMITS.ApprovalRequested.detail)) {
    return { ok: false, reason: `approval ${id} was for ${a.kind} "${a.detail}", not for ${kind} "${detail}"` };
  }
  if (a.status === 'pending') return { ok: false, reason: `approval ${id} is still waiting for an operator` };
  if (a.status === 'approved' && !s.approvals.use(id)) return { ok: false, reason: `approval ${id} was used already: one yes is one action` };
  return { ok: true, answer: a };
}

/**
 * Decides a request by the policy. Allowed: nothing is logged. Asked: ApprovalRequested, and the
 * answer is pending until an operator decides. Refused outright: ApprovalRequested and its
 * ApprovalDecided (by `policy`) in one append. A repeated key gets the first request's answer.
 */
export async function requestApproval(s: SessionState, req: ApprovalRequest): Promise<ApprovalAnswer> {
  const known = req.key === null ? null : s.approvals.byKey(req.key);
  if (known) return known;
  const kind = clipText(req.kind, FIELD_LIMITS.ApprovalRequested.kind);
  const detail = clipText(req.detail, FIELD_LIMITS.ApprovalRequested.detail);
  let answer: ApprovalAnswer = { id: null, status: 'allowed', kind, detail };
  let ends: PolicyEnd | null = null;
  let waitSeconds: number | undefined;
  const at = Date.now();
  await s.emit((seq) => {
    const verdict = decideApproval(policyOf(s), kind, detail);
    if (verdict.action === 'allow') return [];
    const id = `${s.id}/${seq}`;
    const evidence = [...(s.nextSeq > 0 ? [`${s.id}/${s.nextSeq - 1}`] : []), ...(req.evidence ?? [])];
    const requested = { type: 'ApprovalRequested' as const, kind, detail, requestedBy: s.id, evidence };
    if (verdict.action === 'ask') {
      answer = { id, status: 'pending', kind, detail };
      waitSeconds = verdict.waitSeconds;
      return [requested];
    }
    answer = { id, status: 'refused', kind, detail, by: 'policy', reason: verdict.reason };
    if (verdict.ends) ends = { id, reason: `${verdict.reason} (approval ${id})` };
    return [requested, { type: 'ApprovalDecided' as const, approvalId: id, decision: 'refused' as const, by: 'policy', decidedAt: at, reason: verdict.reason }];
  }, () => {
    s.approvals.requested(answer, s.id, at, req.key);
    s.approvals.ended ??= ends;
  });
  if (answer.status === 'pending' && waitSeconds !== undefined) void expireUnanswered(s, answer.id!, waitSeconds * 1000);
  return answer;
}

/** CI mode's wait for an operator (approvals.ci `wait`): unanswered after `ms`, the request is refused by policy and the run goes on. */
async function expireUnanswered(s: SessionState, id: string, ms: number): Promise<void> {
  if (ms > 0) await sleep(ms);
  await guardSignal(s, async () => {
    if (s.approvals.answer(id)?.status !== 'pending') return;
    const seconds = policyOf(s).ciWaitSeconds;
    await settle(s, { id, decision: 'refused', by: 'policy', reason: `nobody answered in CI mode within ${seconds} s (approvals.ciWaitSeconds)` });
  })();
}

/** Logs a decision on an open approval: an operator's, or the policy's when a CI wait runs out. */
async function settle(s: SessionState, d: Omit<ApprovalDecision, 'decision'> & { decision: ApprovalDecision['decision'] | 'refused' }): Promise<DecideReply> {
  let reply: DecideReply = { ok: false, reason: `${s.id} issued no approval ${d.id}` };
  const by = clipText(d.by, FIELD_LIMITS.ApprovalDecided.by);
  const reason = clipText(d.reason, FIELD_LIMITS.ApprovalDecided.reason);
  await s.emit(() => {
    const current = s.approvals.answer(d.id);
    if (!current) return [];
    if (current.status !== 'pending') {
      reply = { ok: false, reason: `${d.id} was already ${current.status} by ${current.by}` };
      return [];
    }
    reply = { ok: true, answer: { ...current, status: d.decision, by, reason } };
    return [{ type: 'ApprovalDecided', approvalId: d.id, decision: d.decision, by, decidedAt: Date.now(), reason }];
  }, () => {
    if (reply.ok) s.approvals.settled(reply.answer);
  });
  return reply;
}
