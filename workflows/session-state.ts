import type { BlobRef } from '../schemas/generated/events';
import type { SessionActivities } from '../activities/session-activities';
import type { ChildInfo } from './child-types';
import type { InboxMessage, RetainState, SessionCarry, SessionInput, SnapshotPointer } from './session-types';
import type { FinalAnswer, SessionStatusView } from './messages';
import { FIELD_LIMITS, previewNamingBlob } from '../schemas/field-limits';
import { ApprovalBook } from './approvals/approval-book';
import { LongRun } from './long-run';
import { JobBook } from './jobs/job-book';
import { ResearchBook } from './research/research-book';
import { OperatorControls } from './operator-controls';
import type { RateBucket } from './message-rate';
import { SeenMessages } from './seen-messages';
import { TreeLedger } from './tree-ledger';
import { treeBudgetOf } from './plan-next-step';
import { DEFAULT_HOST_ID } from './hosts/host-queue';
import { SessionLog } from './session-log';

/**
 * The session's working state: a fold of what it has logged plus what Temporal holds durably
 * (inbox, children). Its appends go through `SessionLog` (`emit`, `ride`), one batch at a time.
 */
export class SessionState extends SessionLog {
  turn: number;
  tokens: number;
  readonly startedAt: number;
  readonly children: Map<string, ChildInfo>;
  inbox: InboxMessage[];
  readonly seen: SeenMessages;
  messagesSent: number;
  /** The message allowance (workflows/message-rate.ts); null until the first message. */
  rate: RateBucket | null;
  /** Root only: sessions in the tree so far, this one included (children reserve through it). */
  treeSessions: number;
  cellsSinceSnapshot: number;
  lastSnapshot: SnapshotPointer | null;
  /** A cell of this run reached the cadence: the next model call snapshots beside it (snapshot-kernel.ts). Not carried: a new run's kernel may not be up. */
  snapshotDue = false;
  /** A snapshot whose event rides the batch the next activity writes first; `lastSnapshot` once that lands. Not carried: a continue-as-new follows a flush. */
  snapshotRiding: SnapshotPointer | null = null;
  /** The manifest the start scan logged: the net diff at the end is taken from it. */
  workspaceStart: BlobRef | null;
  /** Changes to files that run outside Recur the scans logged since the last check (approvals/sensitive-gate.ts). Not carried: checked before every model call. */
  outsideChanges: string[] = [];
  /** Goal, schedules, keep-going counters. */
  readonly long: LongRun;
  /** Jobs submitted from the kernel (workflows/jobs). */
  readonly jobs: JobBook;
  /** A research tree's sub-agent: the experiments it asked the root for that have not ended (job ids of the root's). */
  readonly awaited: Set<string>;
  /** A research session's ledger and current record (workflows/research); null in any other session. */
  readonly research: ResearchBook | null;
  readonly approvals: ApprovalBook;
  /** The model in use, a compaction asked for, the cell an interrupt is for. */
  readonly ops: OperatorControls;
  /** Root only: what the whole tree has spent, and its budget. */
  readonly ledger: TreeLedger | null;
  final: FinalAnswer | null = null;
  /** Model replies rejected in a row (workflows/reject-reply.ts); not carried over a continue-as-new. */
  rejectedInARow = 0;
  /** The model call (its turn) the last throttle was for, and how many times it has been throttled (ModelThrottled.attempt). */
  private throttled = { turn: -1, times: 0 };
  /** The host its kernel is on (workflows/placement.ts); null until its first kernel-bound activity. */
  host: string | null;
  /** Set once a sub-agent's first task has ended: it is retained (workflows/retain.ts). */
  retained: RetainState | null;
  phase: SessionStatusView['phase'] = 'starting';
  /** Set once a limit has ended the run and its wrap-up began (wrap-up.ts): no new job starts after it. */
  wrappingUp = false;
  /** Why the session must end, once a handler failed (an append, a bug); the loop then ends it. */
  fault: string | null = null;
  /** Set by the workflow: stops the loop so it can log the fault. */
  onFault: () => void = () => undefined;
  /** Plain steps the worker is running with the log handed over (workflows/worker-steps.ts); null when none. */
  stepsInFlight: { stop(): void; settled: Promise<void> } | null = null;
  /** Allowances handed to the worker in this run: each one's id (not carried: the run's id is in it). */
  stepRuns = 0;
  constructor(input: SessionInput, acts: Pick<SessionActivities, 'appendEvents'>) {
    super(input, acts);
    const c = input.carry;
    this.turn = c?.turn ?? 0;
    this.tokens = c?.tokens ?? 0;
    this.startedAt = c?.startedAt ?? Date.now();
    this.children = new Map((c?.children ?? []).map((ch) => [ch.name, ch]));
    this.inbox = c?.inbox ?? [];
    this.seen = new SeenMessages(c?.seen);
    this.messagesSent = c?.messagesSent ?? 0;
    this.rate = c?.rate ?? null;
    this.treeSessions = c?.treeSessions ?? 1;
    this.cellsSinceSnapshot = c?.cellsSinceSnapshot ?? 0;
    this.lastSnapshot = c?.lastSnapshot ?? null;
    this.workspaceStart = c?.workspaceStart ?? null;
    this.retained = c?.retained ?? null;
    // A run carried over from before placement existed had one host, the home's own.
    this.host = c === undefined ? null : c.host === undefined ? DEFAULT_HOST_ID : c.host;
    this.long = new LongRun(input, c?.longRun, this.startedAt);
    this.jobs = new JobBook(c?.jobs);
    this.awaited = new Set(c?.awaited);
    this.research = input.research ? new ResearchBook(input.research, c?.research) : null;
    this.approvals = new ApprovalBook(c?.approvals);
    this.ops = new OperatorControls(input, c?.operator);
    this.ledger = input.parentId === null ? new TreeLedger(treeBudgetOf(input.limits), this.startedAt, c?.ledger) : null;
  }

  /** Hands unread messages (oldest first, at most `max`) to the agent, logging each delivery once. */
  async deliver(via: 'prompt' | 'kernel', max = Infinity): Promise<InboxMessage[]> {
    let taken: InboxMessage[] = [];
    await this.emit(() => {
      taken = this.inbox.slice(0, max);
      return taken.map((m) => ({
        type: 'MessageDelivered' as const, messageId: m.messageId, from: m.from, to: this.id, via,
        // No BlobRef field here: a long message's preview names the blob (the sender's MessageSent has it too).
        text: previewNamingBlob(m.text, m.textBlob ?? null, FIELD_LIMITS.MessageDelivered.text),
      }));
    }, () => {
      // Messages that arrived meanwhile were appended behind the taken ones.
      this.inbox = this.inbox.slice(taken.length);
    });
    return taken;
  }

  /**
   * Tells plain steps the worker is running to return, and resolves once their result is the
   * state's: a handler then sees the session as the log has it, and its append follows theirs.
   */
  async settleSteps(): Promise<void> {
    const run = this.stepsInFlight;
    if (!run) return;
    run.stop();
    await run.settled;
  }

  /** Counts one more throttle of the call at `turn`: 1 for its first. */
  throttlesOfCall(turn: number): number {
    this.throttled = { turn, times: this.throttled.turn === turn ? this.throttled.times + 1 : 1 };
    return this.throttled.times;
  }

  accept(message: InboxMessage): void {
    if (this.seen.admit(message.messageId)) this.inbox.push(message);
  }

  /** Ends the session for `reason` (the first fault wins); the loop logs it as SessionFailed. */
  fail(reason: string): void {
    if (this.fault !== null) return;
    this.fault = reason;
    this.onFault();
  }

  carry(): SessionCarry {
    const { turn, tokens, startedAt, inbox, messagesSent, rate, treeSessions, cellsSinceSnapshot, lastSnapshot, retained } = this;
    return {
      ...this.logCarry(), turn, tokens, startedAt, children: [...this.children.values()], inbox, seen: this.seen.carry(), messagesSent, rate,
      treeSessions, cellsSinceSnapshot, lastSnapshot, retained, longRun: this.long.carry(), approvals: this.approvals.carry(),
      workspaceStart: this.workspaceStart, operator: this.ops.carry(), host: this.host, jobs: this.jobs.carry(), ...(this.awaited.size > 0 && { awaited: [...this.awaited] }), ...(this.research && { research: this.research.carry() }), ...(this.ledger && { ledger: this.ledger.carry() }),
    };
  }
}
