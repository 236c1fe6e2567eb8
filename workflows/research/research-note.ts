/*
 * Host research events as an agent reads them: in its prompt (activities/prompt/build-prompt.ts)
 * and, for a sub-agent that asked for an experiment, in the root's message telling it the end.
 * Pure: workflow code uses it too.
 */
import type { RecurEventInput } from '../../schemas/generated/events';

/** As logged, or as about to be (fields with defaults may be absent). */
type ResearchEvent = Extract<RecurEventInput, { type: 'ExperimentRecorded' | 'RecordAccepted' | 'RecordRejected' | 'RecordReleased' }>;

/** A ledger row or a record verdict as the model reads it: the host's numbers, never the agent's. */
export function researchNote(e: ResearchEvent): string {
  if (e.type === 'RecordReleased') {
    const force = e.inForce ? 'it is the record to beat now' : 'the record in force has fewer steps';
    return `[human record ${e.recordId} released: ${e.steps} steps, mean ${e.mean.toFixed(5)} over ${e.n} seeds; ${force}. Its CONFIG: ${e.config}. ${e.note}]`;
  }
  if (e.type === 'RecordAccepted') return `[record ${e.jobId} ACCEPTED by the host's judge: ${e.steps} steps, mean ${e.mean.toFixed(5)} over ${e.n} seeds, beats ${e.previousId} (${e.previousSteps} steps); it is the record now]`;
  if (e.type === 'RecordRejected') return `[record candidate ${e.jobId} rejected by the host's judge: ${e.reason}]`;
  if (e.status === 'failed') return `[experiment ${e.jobId} failed: ${e.reason}]`;
  const mean = e.mean == null ? 'diverged' : `mean ${e.mean.toFixed(5)}`;
  return `[experiment ${e.jobId} (${e.kind}${e.by?.includes('/') ? `, asked by ${e.by}` : ''}) ${e.status}: steps ${e.steps ?? '-'}, ${mean} over ${e.values.length} seed${e.values.length === 1 ? '' : 's'}${e.promising ? ', promising' : ''}: ${e.reason}; ledger.query() has the row]`;
}
