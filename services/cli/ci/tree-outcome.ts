import type { FailureKind, GateChecked, StoredEvent } from '../../../schemas';

interface SessionBase {
  sessionId: string;
  /** The name SessionStarted gave it (`root` for a tree's root). */
  name: string;
  startedAt: number;
  /** From SessionStarted to its end event, or to its last event when it has none. */
  durationMs: number;
  /** Every gate run of this session, in log order. */
  gates: GateChecked[];
}

/** How one session of a tree ended, as its own events say. */
export type SessionOutcome = SessionBase & (
  | { status: 'completed'; answer: string; answerBlob: string | null }
  | { status: 'failed'; kind: FailureKind; reason: string; error: string | null }
  | { status: 'running' }
);

/** Each session of the tree (root first, then by id), folded from its events. Pure. */
export function sessionsOf(events: readonly StoredEvent[]): SessionOutcome[] {
  const bySession = new Map<string, StoredEvent[]>();
  for (const e of events) bySession.set(e.sessionId, [...(bySession.get(e.sessionId) ?? []), e]);
  const ids = [...bySession.keys()].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
  return ids.map((sessionId) => {
    const own = bySession.get(sessionId)!.slice().sort((a, b) => a.seq - b.seq);
    const start = own.find((e) => e.event.type === 'SessionStarted');
    const end = own.find((e) => e.event.type === 'SessionCompleted' || e.event.type === 'SessionFailed');
    const startedAt = (start ?? own[0]).ts;
    const base: SessionBase = {
      sessionId, startedAt,
      name: start?.event.type === 'SessionStarted' ? start.event.name : sessionId,
      durationMs: (end ?? own[own.length - 1]).ts - startedAt,
      gates: own.flatMap((e) => (e.event.type === 'GateChecked' ? [e.event] : [])),
    };
    const ev = end?.event;
    if (ev?.type === 'SessionCompleted') return { ...base, status: 'completed', answer: ev.answer, answerBlob: ev.answerBlob?.sha256 ?? null };
    if (ev?.type === 'SessionFailed') return { ...base, status: 'failed', kind: ev.kind, reason: ev.reason, error: ev.error };
    return { ...base, status: 'running' };
  });
}
