import type { RecurEventInput } from '../schemas/generated/events';
import type { SessionActivities } from '../activities/session-activities';
import type { ChildInfo, InboxMessage, RetainState, SessionCarry, SessionInput, SnapshotPointer } from './session-types';
import type { FinalAnswer, SessionStatusView } from './messages';
import { FIELD_LIMITS, previewNamingBlob } from '../schemas/field-limits';
import { LongRun } from './long-run';

const GENESIS = '0'.repeat(64);

/**
 * The session's working state: a fold of what it has logged plus what Temporal holds durably
 * (inbox, children). Persists nothing itself; appends go through `emit`, one batch at a time, so
 * the log's seq and hash chain have a single writer even while handlers run concurrently.
 */
export class SessionState {
  readonly id: string;
  nextSeq: number;
  headHash: string;
  turn: number;
  tokens: number;
  readonly startedAt: number;
  readonly children: Map<string, ChildInfo>;
  inbox: InboxMessage[];
  readonly seenMessageIds: Set<string>;
  messagesSent: number;
  cellsSinceSnapshot: number;
  lastSnapshot: SnapshotPointer | null;
  /** Goal, schedules, keep-going counters. */
  readonly long: LongRun;
  final: FinalAnswer | null = null;
  /** Set once a sub-agent's first task has ended: it is retained (workflows/retain.ts). */
  retained: RetainState | null;
  phase: SessionStatusView['phase'] = 'starting';
  private tail: Promise<unknown> = Promise.resolve();

  constructor(readonly input: SessionInput, private readonly acts: Pick<SessionActivities, 'appendEvents'>) {
    const c = input.carry;
    this.id = input.sessionId;
    this.nextSeq = c?.nextSeq ?? 0;
    this.headHash = c?.headHash ?? GENESIS;
    this.turn = c?.turn ?? 0;
    this.tokens = c?.tokens ?? 0;
    this.startedAt = c?.startedAt ?? Date.now();
    this.children = new Map((c?.children ?? []).map((ch) => [ch.name, ch]));
    this.inbox = c?.inbox ?? [];
    this.seenMessageIds = new Set(c?.seenMessageIds ?? []);
    this.messagesSent = c?.messagesSent ?? 0;
    this.cellsSinceSnapshot = c?.cellsSinceSnapshot ?? 0;
    this.lastSnapshot = c?.lastSnapshot ?? null;
    this.retained = c?.retained ?? null;
    this.long = new LongRun(input, c?.longRun, this.startedAt);
  }

  /** Appends events built from the seq the first one will get; resolves to that seq. */
  emit(build: (firstSeq: number) => RecurEventInput[]): Promise<number> {
    const run = this.tail.then(async () => {
      const fromSeq = this.nextSeq;
      const events = build(fromSeq).map((event) => ({ ts: Date.now(), event }));
      const res = await this.acts.appendEvents({
        sessionId: this.id,
        rootId: this.input.rootId,
        parentId: this.input.parentId,
        fromSeq,
        prevHash: this.headHash,
        events,
      });
      this.nextSeq = res.nextSeq;
      this.headHash = res.headHash;
      return fromSeq;
    });
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Hands unread messages (oldest first, at most `max`) to the agent, logging each delivery once. */
  async deliver(via: 'prompt' | 'kernel', max = Infinity): Promise<InboxMessage[]> {
    const taken = this.inbox.slice(0, max);
    if (taken.length === 0) return [];
    this.inbox = this.inbox.slice(taken.length);
    await this.emit(() => taken.map((m) => ({
      type: 'MessageDelivered' as const, messageId: m.messageId, from: m.from, to: this.id, via,
      // No BlobRef field here: a long message's preview names the blob (the sender's MessageSent has it too).
      text: previewNamingBlob(m.text, m.textBlob ?? null, FIELD_LIMITS.MessageDelivered.text),
    })));
    return taken;
  }

  accept(message: InboxMessage): void {
    if (this.seenMessageIds.has(message.messageId)) return;
    this.seenMessageIds.add(message.messageId);
    this.inbox.push(message);
  }

  carry(): SessionCarry {
    return {
      nextSeq: this.nextSeq,
      headHash: this.headHash,
      turn: this.turn,
      tokens: this.tokens,
      startedAt: this.startedAt,
      children: [...this.children.values()],
      inbox: this.inbox,
      seenMessageIds: [...this.seenMessageIds],
      messagesSent: this.messagesSent,
      cellsSinceSnapshot: this.cellsSinceSnapshot,
      lastSnapshot: this.lastSnapshot,
      retained: this.retained,
      longRun: this.long.carry(),
    };
  }

  status(): SessionStatusView {
    return {
      sessionId: this.id, name: this.input.name, turn: this.turn, tokens: this.tokens,
      nextSeq: this.nextSeq, phase: this.phase, unread: this.inbox.length,
    };
  }
}
