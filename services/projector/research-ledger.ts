/*
 * A research session's ledger as a table, folded from its log alone: one row per experiment
 * (ExperimentRecorded), its trials (seed, value), who asked, the agents' notes and a candidate's verdict,
 * and the record over time. Pure, no Node modules: `recur research ledger` and the viewer read
 * it the same way.
 */
import type { BlobRef, ScaleUpCheck, StoredEvent } from '../../schemas';

export interface LedgerVerdict {
  accepted: boolean;
  previousId: string;
  previousSteps: number;
  pairwiseScore: number | null;
  scaleUp: ScaleUpCheck | null;
  reason: string;
}

export interface LedgerRow {
  id: string;
  /** When the host recorded it, ms since the epoch. */
  ts: number;
  kind: string;
  idea: string;
  parent: string | null;
  problem: string;
  /** The workspace file judged, and its bytes as judged (a blob). */
  file: string;
  source: BlobRef;
  status: string;
  steps: number | null;
  mean: number | null;
  promising: boolean;
  configHash: string | null;
  frozenHash: string | null;
  reason: string;
  trials: { seed: number; value: number | null }[];
  /** The session of the tree that asked (the root or a sub-agent); null in a row logged before sub-agents could ask. */
  by: string | null;
  /** Notes in the order written, each with the session that wrote it. */
  notes: LedgerNote[];
  /** A record candidate's RecordAccepted or RecordRejected; null for a trial. */
  verdict: LedgerVerdict | null;
}

export interface LedgerNote {
  note: string;
  by: string | null;
}

export interface RecordStep {
  id: string;
  ts: number;
  steps: number;
  mean: number;
}

export interface ResearchLedger {
  sessionId: string;
  /** The task from SessionStarted; null when the session is no research session. */
  task: string | null;
  /** Its knowledge tier, from SessionStarted. */
  knowledge: string | null;
  rows: LedgerRow[];
  /** The record at the start, then each one accepted or released into force by the feed, in log order. */
  records: RecordStep[];
}

export function researchLedger(sessionId: string, events: readonly StoredEvent[]): ResearchLedger {
  const out: ResearchLedger = { sessionId, task: null, knowledge: null, rows: [], records: [] };
  const byId = new Map<string, LedgerRow>();
  const seen = new Set<number>();
  for (const s of events) {
    // A retried append can leave a copy of a record: one seq counts once.
    if (s.sessionId !== sessionId || seen.has(s.seq)) continue;
    seen.add(s.seq);
    const e = s.event;
    if (e.type === 'SessionStarted' && e.research) {
      out.task = e.research.task;
      out.knowledge = e.research.knowledge;
      out.records.push({ id: e.research.recordId, ts: Number(s.ts), steps: e.research.recordSteps, mean: e.research.recordMean });
    } else if (e.type === 'ExperimentRecorded') {
      const row: LedgerRow = {
        id: e.jobId, ts: Number(s.ts), kind: e.kind, idea: e.idea, parent: e.parent, problem: e.problem, file: e.file, source: e.source, status: e.status, steps: e.steps, mean: e.mean,
        promising: e.promising, configHash: e.configHash, frozenHash: e.frozenHash, reason: e.reason,
        trials: e.seeds.map((seed, i) => ({ seed: Number(seed), value: e.values[i] ?? null })), by: e.by, notes: [], verdict: null,
      };
      byId.set(row.id, row);
      out.rows.push(row);
    } else if (e.type === 'RecordAccepted' || e.type === 'RecordRejected') {
      const row = byId.get(e.jobId);
      const accepted = e.type === 'RecordAccepted';
      if (row) row.verdict = { accepted, previousId: e.previousId, previousSteps: e.previousSteps, pairwiseScore: e.pairwiseScore, scaleUp: e.scaleUp, reason: accepted ? row.reason : e.reason };
      if (e.type === 'RecordAccepted') out.records.push({ id: e.jobId, ts: Number(s.ts), steps: e.steps, mean: e.mean });
    } else if (e.type === 'RecordReleased' && e.inForce) {
      out.records.push({ id: e.recordId, ts: Number(s.ts), steps: e.steps, mean: e.mean });
    } else if (e.type === 'ExperimentAnnotated') {
      byId.get(e.jobId)?.notes.push({ note: e.note, by: e.by });
    }
  }
  return out;
}
