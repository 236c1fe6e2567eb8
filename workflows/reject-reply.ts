/*
 * A model reply that is neither code nor an answer (activities/model/reply-check.ts): logged with
 * a note the model reads next, then another turn, never a silent end. Bounded: past a few in a
 * row the session fails, naming the last problem. Deterministic: no I/O but through emit.
 */
import { workflowInfo } from '@temporalio/workflow';
import type { CallModelResult } from '../activities/call-model';
import type { SessionState } from './session-state';
import type { SessionResult } from './session-types';
import { modelCalled } from './step-events';

/** Rejected replies in a row that end the session: a model that cannot be steered by notes rarely recovers. */
export const MAX_REJECTED_IN_A_ROW = 3;
/** A refusal is asked about once: a second in a row is the model's answer to the note. */
export const MAX_REFUSALS_IN_A_ROW = 2;

/** What a rejected reply leads to, given how many in a row (this one included). Pure. */
export function afterRejected(problem: string, inARow: number, note: string): 'again' | SessionResult {
  const max = problem === 'refusal' ? MAX_REFUSALS_IN_A_ROW : MAX_REJECTED_IN_A_ROW;
  if (inARow < max) return 'again';
  return { status: 'failed', kind: 'model_error', reason: `the model's last ${inARow} replies could not be used (the last: ${problem}): ${note}` };
}

/**
 * For a rejected reply: its ModelCalled and a ReplyRejected in one append, then `again` (the next
 * turn), `continue` (a new workflow run is due first) or the session's failure. Null for a reply
 * that is used, which starts the count again.
 */
export async function rejectReply(s: SessionState, reply: CallModelResult): Promise<'again' | 'continue' | SessionResult | null> {
  const turn = s.turn;
  if (!reply.rejected) {
    s.rejectedInARow = 0;
    return null;
  }
  const { problem, note } = reply.rejected;
  const inARow = s.rejectedInARow + 1;
  await s.emit(() => [modelCalled(turn, reply), { type: 'ReplyRejected', problem, inARow, note }], () => {
    s.turn++;
    s.rejectedInARow = inARow;
  });
  const next = afterRejected(problem, inARow, note);
  if (next !== 'again') return next;
  return workflowInfo().continueAsNewSuggested || s.turn % s.input.limits.turnsPerRun === 0 ? 'continue' : 'again';
}
