/*
 * The root's side of a sub-agent's experiment: telling the asker it was queued and how it ended,
 * so a generator waits for its result instead of polling the ledger. Deterministic.
 */
import { getExternalWorkflowHandle, patched } from '@temporalio/workflow';
import type { RecurEventInput } from '../../schemas/generated/events';
import type { InboxMessage } from '../session-types';
import type { SessionState } from '../session-state';
import { experimentNoticeSignal, type ExperimentNotice } from './research-messages';
import { researchNote } from './research-note';

/** Roots that began before sub-agents were told send nothing, so their histories replay. */
const EXPERIMENT_NOTICE = 'experiment-notice';

/** The end of experiment `jobId` as its asker reads it: the host's notes on the events logged for it; one id per job, so a resent end is taken once. */
export function experimentEndMessage(rootId: string, jobId: string, events: RecurEventInput[]): InboxMessage {
  const notes = events.flatMap((e) => (e.type === 'ExperimentRecorded' || e.type === 'RecordAccepted' || e.type === 'RecordRejected' ? [researchNote(e)] : []));
  return { messageId: `${rootId}#${jobId}`, from: rootId, text: notes.join('\n') };
}

/**
 * Signals the sub-agent `by` (a session of this root's tree); nothing for the root's own
 * experiments. An asker that has ended takes nothing: the row is in the ledger all the same.
 */
export async function tellAsker(s: SessionState, by: string | undefined, notice: ExperimentNotice): Promise<void> {
  if (by === undefined || by === s.id || !patched(EXPERIMENT_NOTICE)) return;
  await getExternalWorkflowHandle(by).signal(experimentNoticeSignal, notice).catch(() => undefined);
}
