import type { Client } from '@temporalio/client';
import { setTimeout as sleep } from 'node:timers/promises';
import { HttpError, ScopeError } from '../../errors';
import {
  getApprovalQuery, requestApprovalUpdate, useApprovalUpdate, type ApprovalAnswer,
} from '../../workflows/approvals/approval-messages';

/** What a bridge op hands the kernel while an operator has not answered: the kernel waits and calls again. */
export interface PendingApproval {
  $approval: { id: string; kind: string; detail: string };
}

/** How a refusal reaches the kernel: `ApprovalRefusedError`, a PermissionError there (kernel/recur_kernel/_errors.py). */
export const approvalRefused = (a: ApprovalAnswer): HttpError => new HttpError(
  403,
  `${a.kind} ${a.status === 'refused' ? 'refused by the approval policy' : `${a.status} by ${a.by ?? 'an operator'}`}`
    + `${a.reason ? `: ${a.reason}` : ''} (approval ${a.id}; ${a.detail})`,
  'ApprovalRefusedError',
);

/** Longest one wait holds a bridge request; the kernel loops (its long polls) and host code loops here. */
const WAIT_MS = 20_000;

/**
 * Approvals as the host side asks for them. The session's workflow decides by its policy and
 * logs; this only asks and relays. `gate` is for bridge ops (a kernel waits in Python); `await`
 * is for host code that can hold its caller (an egress proxy holding a connection).
 */
export interface ApprovalGate {
  /**
   * For a bridge op about to do `kind`/`detail` for `sessionId`: null when it may go ahead, a
   * PendingApproval to return to the kernel while an operator decides; throws ApprovalRefusedError
   * when refused or denied. `args.approval` is the id the kernel waited on, when it calls again.
   */
  gate(sessionId: string, req: { kind: string; detail: string }, call: { rid?: string; args: Record<string, unknown> }): Promise<PendingApproval | null>;
  /** Asks and waits until decided; `key` makes a repeated ask the same approval. Resolves to the final answer (allowed, approved, denied, refused), or pending once `signal` aborts. */
  await(sessionId: string, req: { kind: string; detail: string; evidence?: string[] }, key: string, signal?: AbortSignal): Promise<ApprovalAnswer>;
  /** Waits at most `waitMs` while an approval of this session is pending: its answer then. */
  wait(sessionId: string, id: string, waitMs: number, signal?: AbortSignal): Promise<ApprovalAnswer>;
}

export function createApprovalGate(client: Client): ApprovalGate {
  const session = (id: string) => client.workflow.getHandle(id);
  const ask = (sessionId: string, req: { kind: string; detail: string; evidence?: string[] }, key: string | null) =>
    session(sessionId).executeUpdate(requestApprovalUpdate, { args: [{ ...req, key }], ...(key && { updateId: `approval-${key}` }) });
  // Polled by query, as rlm.result polls a child: a long wait leaves no trace in the workflow's history.
  async function wait(sessionId: string, id: string, waitMs: number, signal?: AbortSignal): Promise<ApprovalAnswer> {
    const deadline = Date.now() + Math.min(Math.max(waitMs, 0), WAIT_MS);
    for (let pause = 50; ; pause = Math.min(pause * 2, 1000)) {
      const answer = await session(sessionId).query(getApprovalQuery, id);
      if (!answer) throw new ScopeError(`${sessionId} has no approval ${id}`);
      if (answer.status !== 'pending' || Date.now() >= deadline || signal?.aborted) return answer;
      await sleep(Math.min(pause, Math.max(deadline - Date.now(), 0)));
    }
  }
  const verdict = (a: ApprovalAnswer): PendingApproval | null => {
    if (a.status === 'allowed' || a.status === 'approved') return null;
    if (a.status === 'pending') return { $approval: { id: a.id!, kind: a.kind, detail: a.detail } };
    throw approvalRefused(a);
  };
  return {
    wait,
    async gate(sessionId, req, { rid, args }) {
      if (typeof args.approval !== 'string') return verdict(await ask(sessionId, req, rid ?? null));
      // A kernel calling again names what it waited on: it stands for the very same action, once.
      const used = await session(sessionId).executeUpdate(useApprovalUpdate, {
        args: [{ id: args.approval, ...req }], ...(rid && { updateId: `use-approval-${rid}` }),
      });
      if (!used.ok) throw new ScopeError(used.reason);
      return verdict(used.answer);
    },
    async await(sessionId, req, key, signal) {
      let answer = await ask(sessionId, req, key);
      while (answer.status === 'pending' && !signal?.aborted) answer = await wait(sessionId, answer.id!, WAIT_MS, signal);
      return answer;
    },
  };
}
