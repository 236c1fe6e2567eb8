import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { EditResult, HarnessEditRecord, HarnessEditSummary, HarnessEntry, HarnessTrigger, ProposedEdit } from './harness-types';

/*
 * Everything reaches a harness scope as an update: each caller (a kernel, /refine, the CLI)
 * needs to know what was applied or why not, and the answer is logged before it returns.
 */

export interface EditRequest {
  edits: ProposedEdit[];
  trigger: HarnessTrigger;
  /** `task:<name>`: the roles a research task ships, put into its tree's harness when the root starts. */
  source: 'kernel' | 'refine' | 'cli' | `task:${string}`;
  requestedBy: string | null;
}

export interface EditOutcome {
  editId: string;
  action: HarnessEditRecord['action'];
  kind: string;
  name: string;
  result: EditResult;
  error: string | null;
}

export const editHarnessUpdate = defineUpdate<EditOutcome[], [EditRequest]>('editHarness');

export type RevertReply = { ok: true; edits: EditOutcome[] } | { ok: false; error: string };
/** Reverts one edit, or every applied edit of a refine when `id` is a refine id. */
export const revertHarnessUpdate = defineUpdate<RevertReply, [{ id: string; source: EditRequest['source']; requestedBy: string | null; reason: string }]>('revertHarness');

export interface RefineRequest {
  /** The session whose trajectory the refiner reviews. */
  sessionId: string;
  /** The refiner's model (`provider/model` or `scripted:<file>`; a script's replies are under agent "refiner"). */
  model: string;
  instructions: string;
  /** auto: apply valid edits at once; approve: log them as proposed until approveRefine. */
  apply: 'auto' | 'approve';
  source: EditRequest['source'];
  requestedBy: string | null;
}

export interface RefineReply {
  refineId: string;
  summary: string;
  /** The preview: every proposed edit with the host's verdict, then (auto) what was applied. */
  proposed: EditOutcome[];
  applied: EditOutcome[];
}
export const refineHarnessUpdate = defineUpdate<RefineReply, [RefineRequest]>('refineHarness');
export const approveRefineUpdate = defineUpdate<RevertReply, [{ refineId: string; requestedBy: string | null }]>('approveRefine');

export interface HarnessView {
  scopeId: string;
  entries: HarnessEntry[];
  /** Every edit without its values (those are in the log: `recur harness show <edit-id>`). */
  log: HarnessEditSummary[];
}
export const getHarnessQuery = defineQuery<HarnessView>('getHarness');

/** Sent to a session (not a scope): its kernel's request produced these edits; the session logs the link. */
export const recordHarnessEditsUpdate = defineUpdate<void, [{ op: 'edit' | 'revert' | 'refine'; editIds: string[] }]>('recordHarnessEdits');
