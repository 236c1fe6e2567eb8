/*
 * What a fork copies, where it may be cut, and what its workflow starts from: pure functions of
 * the origin's own log (docs/fork.md). The daemon uses them to answer a bad request at once, the
 * fork's copy activity to check again on what it actually read.
 */
import { verifyChain, type StoredEvent } from '../../schemas';
import type { RecurEvent, RecurEventInput } from '../../schemas/generated/events';
import type { SnapshotPointer } from '../../workflows/session-types';

export type ForkRefusal =
  /** Nothing about the origin can be forked: not a root, or its log is damaged up to the fork point. */
  | { ok: false; kind: 'not-root' | 'damaged'; reason: string }
  /** `at` is outside the log, or cuts a step in two; `valid` is the range a fork may name. */
  | { ok: false; kind: 'range' | 'mid-step'; reason: string; valid: { min: number; max: number } };

export type ForkCheck = { ok: true } | ForkRefusal;

/** What the fork's workflow takes over from the copied history: its counters, and the snapshot its kernel comes back from. */
export interface ForkFold {
  turn: number;
  tokens: number;
  costUsd: number;
  compactions: number;
  cellsRun: number;
  cellsSinceSnapshot: number;
  lastSnapshot: SnapshotPointer | null;
  /** seq of the KernelSnapshotted that lastSnapshot is; null without one. */
  snapshotSeq: number | null;
  /** The origin's sub-agents spawned in the copied part: not forked. */
  children: string[];
}

const isEnd = (e: StoredEvent): boolean => e.type === 'SessionCompleted' || e.type === 'SessionFailed';

/**
 * For each seq of a session's log (sorted, gap-free), whether a fork may end its copy there: after
 * a whole step, before the session's end. A step is cut in two between a CellRequested and its
 * CellExecuted, and between a ModelCalled and the CellRequested appended with it: the fork's
 * prompt would hold a tool call with no result, or its kernel a cell that never finished.
 */
export function forkPoints(events: readonly StoredEvent[]): boolean[] {
  const open = new Set<string>();
  let ended = false;
  return events.map((e, i) => {
    if (isEnd(e)) ended = true;
    if (e.event.type === 'CellRequested') open.add(e.eventId);
    if (e.event.type === 'CellExecuted') open.delete(e.event.requestId);
    return !ended && open.size === 0 && events[i + 1]?.type !== 'CellRequested';
  });
}

/** Whether `at` is a seq the origin's log (its own events, in seq order) may be forked at; a refusal says why and what is valid. */
export function checkForkPoint(events: readonly StoredEvent[], originId: string, at: number): ForkCheck {
  const first = events[0];
  if (first && first.parentId !== null) {
    return { ok: false, kind: 'not-root', reason: `${originId} is a sub-agent of ${first.parentId}: only a root session can be forked` };
  }
  const points = forkPoints(events);
  const max = points.lastIndexOf(true);
  const valid = { min: 0, max };
  if (!Number.isInteger(at) || at < 0 || at > max) {
    const why = max < events.length - 1 ? ` (its events before it ended at seq ${max + 1})` : '';
    return { ok: false, kind: 'range', valid, reason: `at must be a seq of ${originId} in 0..${max}${why}, got ${at}` };
  }
  const chain = verifyChain(events.slice(0, at + 1));
  if (!chain.ok) {
    return { ok: false, kind: 'damaged', reason: `the log of ${originId} is damaged at seq ${chain.seq} (${chain.fault}: ${chain.detail}); see recur audit verify ${originId}` };
  }
  if (!points[at]) {
    const before = points.lastIndexOf(true, at);
    const after = points.indexOf(true, at);
    const near = [before, after].filter((s) => s >= 0).map((s) => `${s}`).join(' or ');
    return { ok: false, kind: 'mid-step', valid, reason: `seq ${at} of ${originId} falls inside a step (a cell or the reply that asked for it is not complete there): fork at ${near}` };
  }
  return { ok: true };
}

/** The fold of the copied events 0..at: counters as the origin's workflow had them there, and the latest snapshot. */
export function foldFork(copied: readonly StoredEvent[]): ForkFold {
  const fold: ForkFold = {
    turn: 0, tokens: 0, costUsd: 0, compactions: 0, cellsRun: 0, cellsSinceSnapshot: 0, lastSnapshot: null, snapshotSeq: null, children: [],
  };
  for (const { event: e, seq } of copied) {
    switch (e.type) {
      case 'ModelCalled':
        fold.turn = e.turn + 1;
        fold.tokens += e.tokensIn + e.tokensOut;
        fold.costUsd += e.costUsd;
        break;
      case 'Compacted':
        fold.compactions++;
        fold.tokens += e.tokensIn + e.tokensOut;
        fold.costUsd += e.costUsd;
        break;
      case 'CellRequested':
        fold.cellsRun++;
        break;
      case 'CellExecuted':
        fold.cellsSinceSnapshot++;
        break;
      case 'KernelSnapshotted':
        fold.lastSnapshot = { manifest: e.manifest, coversSeq: e.coversSeq };
        fold.snapshotSeq = seq;
        // Cells between coversSeq and this event cannot exist: the snapshot is taken right after its cell.
        fold.cellsSinceSnapshot = 0;
        break;
      case 'SubagentSpawned':
        fold.children.push(e.childId);
        break;
      default:
        break;
    }
  }
  return fold;
}

/** Fields that hold an event id of the session's own log (their schema docs say so). */
const OWN_EVENT_ID_FIELDS: Partial<Record<RecurEvent['type'], readonly string[]>> = {
  ApprovalDecided: ['approvalId'], ApprovalRequested: ['evidence'], CellExecuted: ['requestId'], CellRequested: ['cellId'],
  KernelRestored: ['replayedCells', 'interruptedCell'], SubagentSpawned: ['requestId'], SubagentTasked: ['requestId'], WorkspaceChanged: ['requestId'],
};

/**
 * An origin's event as the fork logs it: the fields that name one of the origin's own events
 * (`<origin>/<seq>`: a cell's request, a restore's re-run cells, an approval's evidence) name the
 * fork's copy instead, so the fork's log refers only to itself. Child ids (`<origin>/<name>`) and
 * free text stay as they were.
 */
export function rekeyEvent(event: RecurEvent, originId: string, forkId: string): RecurEventInput {
  const own = `${originId}/`;
  const rekey = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(rekey);
    return typeof v === 'string' && v.startsWith(own) && /^\d+$/.test(v.slice(own.length)) ? `${forkId}/${v.slice(own.length)}` : v;
  };
  const copy: Record<string, unknown> = { ...event };
  for (const field of OWN_EVENT_ID_FIELDS[event.type] ?? []) copy[field] = rekey(copy[field]);
  return copy as unknown as RecurEventInput;
}
