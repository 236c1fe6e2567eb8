import type { StoredEvent } from '../../schemas';

/** Rows a compaction note repeats: enough to go on from; ledger.query() has the rest. */
const HEAD_ROWS = 5;

/**
 * What a compaction must not drop from a research session's context (research-loop.md F11): the
 * record in force and the last rows of the ledger, as the host logged them up to `toSeq`. Null
 * in a session that is no research session or had no experiment yet. Pure.
 */
export function ledgerHead(events: readonly StoredEvent[], toSeq: number): string | null {
  let record: { id: string; steps: number; mean: number } | null = null;
  const rows: string[] = [];
  for (const { event: e, seq } of events) {
    if (seq > toSeq) break;
    if (e.type === 'SessionStarted' && e.research) record = { id: e.research.recordId, steps: e.research.recordSteps, mean: e.research.recordMean };
    else if (e.type === 'RecordAccepted') record = { id: e.jobId, steps: e.steps, mean: e.mean };
    else if (e.type === 'ExperimentRecorded') {
      const mean = e.mean === null ? 'no mean' : `mean ${e.mean.toFixed(5)} over ${e.values.length}`;
      rows.push(`${e.jobId} ${e.kind} ${e.status}: ${e.idea || e.file}, steps ${e.steps ?? '-'}, ${mean}${e.promising ? ', promising' : ''}`);
    }
  }
  if (!record || rows.length === 0) return null;
  const last = rows.slice(-HEAD_ROWS).map((r) => `- ${r}`).join('\n');
  return `[research ledger, as the host keeps it: the record is ${record.id} at ${record.steps} steps (mean ${record.mean.toFixed(5)}); ${rows.length} experiment${rows.length === 1 ? '' : 's'} so far, the last:\n${last}\nledger.query() has every row.]`;
}
