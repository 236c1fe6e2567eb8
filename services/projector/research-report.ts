/*
 * A research session tree's report, folded from its log alone: the ledger and the record over
 * time, what the tree spent in all and per accepted record, and how much of the root's wall time
 * nothing ran. Pure, no Node modules: `recur research report` prints it and charts it.
 */
import type { StoredEvent } from '../../schemas';
import { isInSessionTree } from '../../schemas/session-ids';
import { busyTime, type BusyTime, type Interval } from './busy-time';
import { costTree, type Spent } from './cost-tree';
import { researchLedger, type RecordStep, type ResearchLedger } from './research-ledger';

export interface PerRecord {
  tokensIn: number;
  tokensOut: number;
  costUsd: number;
}

export interface ResearchReport {
  sessionId: string;
  /** Null when the session is no research session. */
  task: string | null;
  ledger: ResearchLedger;
  experiments: number;
  /** RecordAccepted events: records this session set. */
  accepted: number;
  recordAtStart: RecordStep | null;
  recordNow: RecordStep | null;
  /** The root's wall time, ms since the epoch: its first event to its end (or, while it runs, the tree's last event). */
  startedAt: number | null;
  endedAt: number | null;
  /** The whole tree's spend (sub-agents included); null when the root was never started. */
  spent: Spent | null;
  /** spent / accepted; null when no record was accepted. */
  perAccepted: PerRecord | null;
  time: BusyTime;
}

const END_TYPES = new Set(['SessionCompleted', 'SessionFailed', 'SessionClosed']);

/** The report of the tree rooted at `rootId`, from every session's events of it. */
export function researchReport(rootId: string, events: readonly StoredEvent[]): ResearchReport {
  const ledger = researchLedger(rootId, events);
  const tree = costTree(rootId, events);
  // The record over time starts with the one in force at the start; each later one was accepted here.
  const accepted = ledger.records.length - (ledger.task === null ? 0 : 1);
  const spent = tree?.total ?? null;
  const window = rootWindow(rootId, events);
  return {
    sessionId: rootId,
    task: ledger.task,
    ledger,
    experiments: ledger.rows.length,
    accepted,
    recordAtStart: ledger.records[0] ?? null,
    recordNow: ledger.records.at(-1) ?? null,
    startedAt: window?.start ?? null,
    endedAt: window?.end ?? null,
    spent,
    perAccepted: spent && accepted > 0 ? { tokensIn: spent.tokensIn / accepted, tokensOut: spent.tokensOut / accepted, costUsd: spent.costUsd / accepted } : null,
    time: busyTime(window ?? { start: 0, end: 0 }, window ? activity(rootId, events, window.end) : []),
  };
}

/**
 * From the root's first event to its end event. A root still running has no end: the tree's
 * last event is the latest moment the log knows of.
 */
function rootWindow(rootId: string, events: readonly StoredEvent[]): { start: number; end: number } | null {
  let start = Infinity;
  let end = -Infinity;
  let last = -Infinity;
  for (const s of events) {
    last = Math.max(last, s.ts);
    if (s.sessionId !== rootId) continue;
    start = Math.min(start, s.ts);
    if (END_TYPES.has(s.event.type)) end = Math.max(end, s.ts);
  }
  if (start === Infinity) return null;
  return { start, end: end === -Infinity ? last : end };
}

/**
 * Every session's model calls (a ModelCalled is logged at the call's end, after `latencyMs`) and
 * jobs (JobStarted to JobEnded; one with no end runs until `until`). A job queued and never
 * started held no slot, so it is no interval.
 */
function activity(rootId: string, events: readonly StoredEvent[], until: number): Interval[] {
  const out: Interval[] = [];
  const running = new Map<string, number>();
  // seq orders each session's own events, whatever order the sessions come in; a retried
  // append's copy of a record sorts beside it and adds the same interval again, which adds no time.
  for (const s of [...events].sort((a, b) => a.seq - b.seq)) {
    if (!isInSessionTree(s.sessionId, rootId)) continue;
    const e = s.event;
    if (e.type === 'ModelCalled') out.push({ kind: 'model', start: s.ts - e.latencyMs, end: s.ts });
    else if (e.type === 'JobStarted') running.set(`${s.sessionId}#${e.jobId}`, s.ts);
    else if (e.type === 'JobEnded') {
      const start = running.get(`${s.sessionId}#${e.jobId}`);
      if (start !== undefined) out.push({ kind: 'job', start, end: s.ts });
      running.delete(`${s.sessionId}#${e.jobId}`);
    }
  }
  for (const start of running.values()) out.push({ kind: 'job', start, end: until });
  return out;
}
