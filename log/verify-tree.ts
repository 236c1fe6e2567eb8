import { sessionParent, verifyChain, type ChainFault, type Keyring, type SealFault, type StoredEvent } from '../schemas';
import { checkSeals } from './check-seals';
import type { LogInOrder } from './in-order-collector';

/**
 * What an audit can find wrong with a session tree: a chain fault of one session (see
 * schemas/chain.ts), an event not sealed by a known key (schemas/signature.ts), two different
 * records for one eventId, an undecodable record keyed inside the tree, or a tree that does not
 * hang together (a child its parent never spawned, a child spawned or a session ended twice, a
 * child its parent saw end whose log is missing), or no events at all; in an audit bundle also
 * a blob an event names that the bundle lacks or holds with other bytes (bundle/verify-bundle.ts).
 */
export type AuditFault =
  | ChainFault | SealFault | 'conflict' | 'undecodable' | 'no-spawn' | 'spawned-twice' | 'ended-twice' | 'missing-child' | 'no-events'
  | 'blob-missing' | 'blob-corrupt';

export interface AuditProblem {
  readonly fault: AuditFault;
  /** The bad event; null for a record that could not be decoded and for an empty tree. */
  readonly eventId: string | null;
  readonly sessionId: string | null;
  readonly seq: number | null;
  readonly detail: string;
}

export interface SessionSummary {
  readonly sessionId: string;
  readonly events: number;
  /** One past the highest seq logged. */
  readonly nextSeq: number;
  /** Hash of the event with the highest seq: the head a later append must chain to. */
  readonly headHash: string;
  readonly ended: 'completed' | 'failed' | null;
}

export interface TreeVerdict {
  readonly ok: boolean;
  readonly sessionId: string;
  readonly sessions: readonly SessionSummary[];
  readonly events: number;
  /** Exact copies dropped (retried appends); not a fault. */
  readonly duplicates: number;
  /** Copies of an event's content sealed again by another known key (a retry across a rotation); not a fault. */
  readonly resealed: number;
  /** Events whose seal verified, by key id. */
  readonly signedBy: Readonly<Record<string, number>>;
  /** Every problem found, the first bad event first (by session id, then seq). */
  readonly faults: readonly AuditProblem[];
}

const isEnd = (e: StoredEvent): boolean => e.type === 'SessionCompleted' || e.type === 'SessionFailed';
const at = (e: StoredEvent, fault: AuditFault, detail: string): AuditProblem =>
  ({ fault, eventId: e.eventId, sessionId: e.sessionId, seq: e.seq, detail });

function chainProblem(events: readonly StoredEvent[]): AuditProblem | undefined {
  const v = verifyChain(events);
  return v.ok ? undefined : { fault: v.fault, eventId: v.eventId, sessionId: v.sessionId, seq: v.seq, detail: v.detail };
}

/** Spawns, ends and child outcomes that contradict the tree's shape. */
function treeProblems(treeId: string, sessions: ReadonlyMap<string, readonly StoredEvent[]>): AuditProblem[] {
  const problems: AuditProblem[] = [];
  const spawned = new Set<string>();
  for (const events of sessions.values()) {
    let end: StoredEvent | undefined;
    // A fork's copied history (before its ForkedFrom) spawned the origin's children, which the origin's tree holds.
    const copiedUpTo = events.find((e) => e.type === 'ForkedFrom')?.seq ?? -1;
    for (const e of [...events].sort((a, b) => a.seq - b.seq)) {
      if (e.seq < copiedUpTo && (e.type === 'SubagentSpawned' || e.type === 'SubagentCompleted')) continue;
      if (e.event.type === 'SubagentSpawned') {
        if (spawned.has(e.event.childId)) problems.push(at(e, 'spawned-twice', `${e.event.childId} was already spawned`));
        spawned.add(e.event.childId);
      }
      if (e.event.type === 'SubagentCompleted' && !sessions.has(e.event.childId)) {
        problems.push(at(e, 'missing-child', `the parent saw ${e.event.childId} end (${e.event.status}) but its log has no events`));
      }
      if (isEnd(e) && end) problems.push(at(e, 'ended-twice', `the session already ended at ${end.eventId} (${end.type})`));
      if (isEnd(e)) end ??= e;
    }
  }
  for (const [sessionId, events] of sessions) {
    if (sessionId === treeId || spawned.has(sessionId)) continue;
    const first = events.reduce((a, b) => (b.seq < a.seq ? b : a));
    const parent = sessionParent(sessionId);
    const why = parent && sessions.has(parent) ? `${parent} has no SubagentSpawned for it` : `its parent ${parent} has no events`;
    problems.push(at(first, 'no-spawn', why));
  }
  return problems;
}

function summary(sessionId: string, events: readonly StoredEvent[]): SessionSummary {
  const head = events.reduce((a, b) => (b.seq > a.seq ? b : a));
  const end = events.find(isEnd);
  return {
    sessionId, events: events.length, nextSeq: head.seq + 1, headHash: head.hash,
    ended: end ? (end.type === 'SessionCompleted' ? 'completed' : 'failed') : null,
  };
}

function bySessionThenSeq(a: AuditProblem, b: AuditProblem): number {
  const [sa, sb] = [a.sessionId ?? '', b.sessionId ?? ''];
  if (sa !== sb) return sa < sb ? -1 : 1;
  return (a.seq ?? Infinity) - (b.seq ?? Infinity);
}

/**
 * Checks a session tree read in log order: every session's chain (seq continuity from 0, order,
 * prevHash and hash), every event's seal against `keys` (public keys only), conflicting copies,
 * undecodable records keyed inside the tree, and the tree's shape. Pure; `ok` only when nothing
 * at all is wrong.
 */
export function verifyTree(treeId: string, log: LogInOrder, keys: Keyring): TreeVerdict {
  const ids = [...log.sessions.keys()].sort();
  const faults: AuditProblem[] = [];
  for (const id of ids) {
    const problem = chainProblem(log.sessions.get(id)!);
    if (problem) faults.push(problem);
  }
  const seals = checkSeals(log.sessions, log.conflicts, keys);
  faults.push(...seals.problems.map((p) => at(p.event, p.fault, p.detail)));
  for (const u of log.undecodable) {
    faults.push({ fault: 'undecodable', eventId: null, sessionId: u.key, seq: null, detail: `partition ${u.partition} offset ${u.offset}: ${u.reason}` });
  }
  faults.push(...treeProblems(treeId, log.sessions));
  if (ids.length === 0 && faults.length === 0) {
    faults.push({ fault: 'no-events', eventId: null, sessionId: treeId, seq: null, detail: `no events logged for ${treeId}` });
  }
  const sessions = ids.map((id) => summary(id, log.sessions.get(id)!));
  return {
    ok: faults.length === 0,
    sessionId: treeId,
    sessions,
    events: sessions.reduce((n, s) => n + s.events, 0),
    duplicates: log.duplicates,
    resealed: seals.resealed,
    signedBy: seals.signedBy,
    faults: faults.sort(bySessionThenSeq),
  };
}
