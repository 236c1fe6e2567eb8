import type { RunJobResult } from '../../activities/jobs/run-job';
import type { RecurEventInput } from '../../schemas/generated/events';
import { parseVerdict } from './judge-verdict';
import type { CurrentRecord, Experiment } from './research-messages';

/** What an experiment's job end logs and changes: its ledger row, a candidate's verdict, the record it set. */
export interface ExperimentEnd {
  events: RecurEventInput[];
  fields: Partial<Experiment>;
  record: CurrentRecord | null;
}

type Ended = Pick<RunJobResult, 'outcome' | 'reason' | 'logTail'>;

/**
 * Pure: the ledger row for `row`'s job end, from the judge's verdict in its output. Nothing of a
 * run that did not finish is counted (a preempted or cancelled set of seeds is no set), and a
 * candidate judged against a record that has since been beaten is rejected: it has not beaten
 * the one in force.
 */
export function experimentEnd(row: Experiment, current: CurrentRecord, end: Ended): ExperimentEnd {
  const v = end.outcome === 'finished' ? parseVerdict(end.logTail) : null;
  const none = {
    status: 'failed' as const, steps: null, seeds: [], values: [], mean: null, promising: false, configHash: null,
    reason: end.outcome === 'finished' ? 'the judge printed no verdict: nothing of it is counted' : `the job ${end.outcome.replace('_', ' ')}${end.reason ? ` (${end.reason})` : ''}: nothing of it is counted`,
  };
  const recorded = (fields: Omit<Experiment, 'id' | 'kind' | 'idea' | 'parent' | 'problem' | 'file' | 'source' | 'trials' | 'against' | 'notes' | 'by'>, frozenHash: string | null): RecurEventInput => ({
    type: 'ExperimentRecorded', jobId: row.id, kind: row.kind, idea: row.idea, parent: row.parent, problem: row.problem, file: row.file, source: row.source,
    status: fields.status === 'queued' ? 'failed' : fields.status, steps: fields.steps, seeds: fields.seeds, values: fields.values,
    mean: fields.mean, promising: fields.promising, configHash: fields.configHash, frozenHash, reason: fields.reason, by: row.by ?? null,
  });
  if (!v) {
    const events: RecurEventInput[] = [recorded(none, null)];
    if (row.kind === 'record') events.push(rejected(row, current, null, false, none.reason));
    return { events, fields: none, record: null };
  }
  const measured = { steps: v.steps, seeds: v.seeds, values: v.values, mean: v.mean, configHash: v.configHash };
  if (row.kind === 'trial') {
    const fields = { ...measured, status: 'measured' as const, promising: v.promising, reason: v.reason };
    return { events: [recorded(fields, v.frozenHash)], fields, record: null };
  }
  const stale = row.against !== current.id;
  const accepted = v.accepted && !stale && v.n === current.n && v.steps !== null && v.mean !== null && v.configHash !== null && v.pairwiseScore !== null;
  const reason = stale && v.accepted ? `the record changed while it was judged (now ${current.id}, ${current.steps} steps): submit it again` : v.reason;
  const fields = { ...measured, status: accepted ? 'accepted' as const : 'rejected' as const, promising: false, reason };
  if (!accepted) return { events: [recorded(fields, v.frozenHash), rejected(row, current, v, v.clearsBar, reason)], fields, record: null };
  const record = { id: row.id, steps: v.steps!, mean: v.mean!, n: v.n };
  return {
    events: [recorded(fields, v.frozenHash), {
      type: 'RecordAccepted', jobId: row.id, steps: record.steps, mean: record.mean, n: record.n, configHash: v.configHash!,
      previousId: current.id, previousSteps: current.steps, previousMean: current.mean, pairwiseScore: v.pairwiseScore!, scaleUp: v.scaleUp,
    }],
    fields,
    record,
  };
}

function rejected(row: Experiment, current: CurrentRecord, v: ReturnType<typeof parseVerdict>, clearsBar: boolean, reason: string): RecurEventInput {
  return {
    type: 'RecordRejected', jobId: row.id, steps: v?.steps ?? null, mean: v?.mean ?? null, clearsBar, reason,
    previousId: current.id, previousSteps: current.steps, pairwiseScore: v?.pairwiseScore ?? null, scaleUp: v?.scaleUp ?? null,
  };
}
