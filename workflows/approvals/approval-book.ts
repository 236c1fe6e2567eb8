import type { ApprovalAnswer, OpenApproval } from './approval-messages';
import type { Spend } from './approval-policy';

/** Decided approvals remembered for late waiters and repeated requests; older ones drop off. */
const REMEMBERED = 64;

export interface ApprovalCarry {
  open: OpenApproval[];
  decided: ApprovalAnswer[];
  keys: Array<[string, string]>;
  spendMark: Spend;
  /** The request CI mode's policy ended the run on; absent: none. */
  ended?: PolicyEnd | null;
}

/** What ended the run in CI mode (approvals.ci `end`): the refused approval, or the sub-agent it ended, and why. */
export interface PolicyEnd {
  id: string;
  reason: string;
}

/**
 * A session's approvals: the open ones, the recently decided ones and the request keys that
 * issued them, plus the spending mark of the last approved spend. Plain state, changed only in
 * an emit's commit once the event that records the change is logged; carried across continue-as-new.
 */
export class ApprovalBook {
  readonly open: Map<string, OpenApproval>;
  private readonly decided: Map<string, ApprovalAnswer>;
  private readonly keys: Map<string, string>;
  spendMark: Spend;
  ended: PolicyEnd | null;

  constructor(c?: ApprovalCarry) {
    this.open = new Map((c?.open ?? []).map((a) => [a.id, a]));
    this.decided = new Map((c?.decided ?? []).map((a) => [a.id!, a]));
    this.keys = new Map(c?.keys ?? []);
    this.spendMark = c?.spendMark ?? { tokens: 0, costUsd: 0 };
    this.ended = c?.ended ?? null;
  }

  answer(id: string): ApprovalAnswer | null {
    const open = this.open.get(id);
    if (open) return { id, status: 'pending', kind: open.kind, detail: open.detail };
    return this.decided.get(id) ?? null;
  }

  byKey(key: string): ApprovalAnswer | null {
    const id = this.keys.get(key);
    return id === undefined ? null : this.answer(id);
  }

  /** Records a logged request (pending, or refused at once); `key` then answers with it. */
  requested(a: ApprovalAnswer, sessionId: string, requestedAt: number, key: string | null): void {
    if (a.id === null) return;
    if (key !== null) this.keys.set(key, a.id);
    if (a.status === 'pending') this.open.set(a.id, { id: a.id, sessionId, kind: a.kind, detail: a.detail, requestedAt });
    else this.settled(a);
  }

  /** Records a logged decision. */
  settled(a: ApprovalAnswer): void {
    this.open.delete(a.id!);
    this.decided.set(a.id!, a);
    for (const old of [...this.decided.keys()].slice(0, Math.max(this.decided.size - REMEMBERED, 0))) this.decided.delete(old);
    for (const [key, id] of this.keys) if (!this.open.has(id) && !this.decided.has(id)) this.keys.delete(key);
  }

  /** Marks an approved approval used; false when it was used already. */
  use(id: string): boolean {
    const a = this.decided.get(id);
    if (!a || a.used) return false;
    this.decided.set(id, { ...a, used: true });
    return true;
  }

  carry(): ApprovalCarry {
    return { open: [...this.open.values()], decided: [...this.decided.values()], keys: [...this.keys], spendMark: this.spendMark, ended: this.ended };
  }
}
