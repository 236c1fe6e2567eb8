/*
 * One harness scope's durable owner and the single writer of its log (`harness:<scope>`). It may
 * not do I/O but through activities, and keeps no transcript: only the edits, which it folds.
 * Every request is serialised, so edits are validated against the state they will change.
 */
import { allHandlersFinished, condition, continueAsNew, proxyActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { AppendEventsResult } from '../../activities/event-log';
import type { HarnessActivities } from '../../activities/harness/harness-activities';
import { ZERO_HASH } from '../../schemas/log-constants';
import type { RecurEventInput } from '../../schemas/generated/events';
import { checkHarnessEdit, HARNESS_LIMITS } from './check-harness-edit';
import { foldHarness, harnessEntries } from './fold-harness';
import {
  approveRefineUpdate, editHarnessUpdate, getHarnessQuery, refineHarnessUpdate, revertHarnessUpdate,
  type EditOutcome, type EditRequest, type RefineReply, type RefineRequest, type RevertReply,
} from './harness-messages';
import { entryKey, type HarnessEditRecord, type HarnessEditSummary, type HarnessEntry } from './harness-types';
import { planHarnessRevert, revertTargets } from './plan-harness-revert';

export interface HarnessWorkflowInput {
  /** `harness:<rootId>` or `harness:<global scope name>`: the workflow id and the log's session id. */
  scopeId: string;
  /** Edits per run before continuing as new (default 500); tests make it small. */
  editsPerRun?: number;
  /** The state and the edits without their values: bounded by the scope's size limit plus ~200 bytes an edit. */
  carry?: { nextSeq: number; headHash: string; entries: HarnessEntry[]; log: HarnessEditSummary[]; refines: number };
}

/** Edits per run before continuing as new: keeps each run's history short. */
const EDITS_PER_RUN = 500;

const acts = proxyActivities<HarnessActivities>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 10, initialInterval: '200ms', maximumInterval: '10s' },
});

type Draft = Omit<HarnessEditRecord, 'editId'>;

export async function harnessWorkflow(input: HarnessWorkflowInput): Promise<void> {
  const { scopeId } = input;
  let nextSeq = input.carry?.nextSeq ?? 0;
  let headHash = input.carry?.headHash ?? ZERO_HASH;
  let refines = input.carry?.refines ?? 0;
  const log: HarnessEditSummary[] = input.carry?.log ?? [];
  let state = new Map((input.carry?.entries ?? []).map((e) => [entryKey(e.kind, e.name), e]));
  let editsThisRun = 0;
  let tail: Promise<unknown> = Promise.resolve();
  const serial = <T>(f: () => Promise<T>): Promise<T> => {
    const run = tail.then(f);
    tail = run.catch(() => undefined);
    return run;
  };

  /** Logs the edits, after `lead` (the refiner's ModelCalled) in the same batch when there is one. */
  async function append(drafts: Draft[], lead: RecurEventInput[] = []): Promise<EditOutcome[]> {
    if (drafts.length === 0 && lead.length === 0) return [];
    const res: AppendEventsResult = await acts.appendEvents({
      sessionId: scopeId, rootId: scopeId, parentId: null, fromSeq: nextSeq, prevHash: headHash,
      events: [...lead, ...drafts.map((d) => ({ type: 'HarnessEdited' as const, ...d }))].map((event) => ({ ts: Date.now(), event })),
    });
    const records = drafts.map((d, i) => ({ ...d, editId: res.eventIds[lead.length + i] }));
    nextSeq = res.nextSeq;
    headHash = res.headHash;
    log.push(...records.map(({ before: _b, after: _a, ...summary }) => summary));
    state = foldHarness(records, state);
    editsThisRun += records.length;
    return records.map(({ editId, action, kind, name, result, error }) => ({ editId, action, kind, name, result, error }));
  }

  /** Validates each edit against the state the ones before it leave; `mode` says what a valid one becomes. */
  function decide(req: EditRequest, mode: 'applied' | 'proposed', refineId: string | null): Draft[] {
    let scratch = state;
    return req.edits.map((e, i) => {
      const check = i >= HARNESS_LIMITS.editsPerRequest
        ? { ok: false as const, error: `over the limit of ${HARNESS_LIMITS.editsPerRequest} edits per request` }
        : e.refusal ? { ok: false as const, error: e.refusal } : checkHarnessEdit(scratch, e);
      const base = {
        action: e.action, kind: String(e.kind), name: String(e.name),
        trigger: { eventIds: req.trigger.eventIds, reason: e.reason ? `${req.trigger.reason}: ${e.reason}` : req.trigger.reason },
        source: req.source, requestedBy: req.requestedBy, revertOf: null, refineId,
      };
      if (!check.ok) return { ...base, before: null, after: null, result: 'refused' as const, error: check.error };
      const draft = { ...base, kind: check.kind, before: check.before, after: check.after, result: mode, error: null };
      scratch = foldHarness([{ ...draft, result: 'applied', editId: '(draft)' }], scratch);
      return draft;
    });
  }

  setHandler(getHarnessQuery, () => ({ scopeId, entries: harnessEntries(state), log }));

  setHandler(editHarnessUpdate, (req) => serial(() => append(decide(req, 'applied', null))));

  setHandler(revertHarnessUpdate, ({ id, source, requestedBy, reason }) => serial(async (): Promise<RevertReply> => {
    const targets = revertTargets(log, id).map((t) => t.editId);
    const values = targets.length > 0 ? await acts.readHarnessEdits({ scopeId, editIds: targets }) : {};
    const plan = planHarnessRevert(state, log, id, new Map(Object.entries(values)));
    if (!plan.ok) return plan;
    const edits = await append(plan.steps.map((s) => ({
      action: 'revert' as const, kind: s.kind, name: s.name, before: s.before, after: s.after,
      trigger: { eventIds: [s.revertOf], reason: reason || `revert of ${id}` },
      source, requestedBy, result: 'applied' as const, error: null, revertOf: s.revertOf, refineId: null,
    })));
    return { ok: true, edits };
  }));

  setHandler(refineHarnessUpdate, (req: RefineRequest) => serial(async (): Promise<RefineReply> => {
    const refineId = `${scopeId}#r${++refines}`;
    const plan = await acts.planRefine({
      sessionId: req.sessionId, model: req.model, instructions: req.instructions, harness: harnessEntries(state), callIndex: refines - 1,
    });
    const editReq: EditRequest = {
      edits: plan.edits, trigger: { eventIds: plan.evidence, reason: `refine: ${plan.summary}` }, source: 'refine', requestedBy: req.requestedBy,
    };
    // The refiner's call is a model call like any other: logged with its tokens and cost.
    const proposed = await append(decide(editReq, 'proposed', refineId), [{ type: 'ModelCalled', turn: refines - 1, ...plan.call }]);
    const applied = req.apply === 'auto' ? await applyProposed(refineId) : [];
    return { refineId, summary: plan.summary, proposed, applied };
  }));

  /** Applies a refine's proposed edits, each re-validated against the state now (it may have moved on). */
  async function applyProposed(refineId: string): Promise<EditOutcome[]> {
    const pending = log.filter((e) => e.refineId === refineId && e.result === 'proposed');
    const values = pending.length > 0 ? await acts.readHarnessEdits({ scopeId, editIds: pending.map((p) => p.editId) }) : {};
    let scratch = state;
    return append(pending.map(({ editId: _proposedId, ...p }) => {
      const proposedAfter = values[_proposedId]?.after ?? null;
      const value = proposedAfter === null ? undefined : JSON.parse(proposedAfter);
      const check = checkHarnessEdit(scratch, { action: p.action as 'create', kind: p.kind, name: p.name, value });
      if (!check.ok) return { ...p, before: null, after: null, result: 'refused' as const, error: check.error };
      scratch = foldHarness([{ ...p, before: check.before, after: check.after, editId: _proposedId, result: 'applied' }], scratch);
      return { ...p, before: check.before, after: check.after, result: 'applied' as const, error: null };
    }));
  }

  setHandler(approveRefineUpdate, ({ refineId }) => serial(async (): Promise<RevertReply> => {
    if (!log.some((e) => e.refineId === refineId && e.result === 'proposed')) return { ok: false, error: `no proposed edits for refine ${refineId}` };
    const lastProposed = log.map((e) => e.refineId === refineId && e.result === 'proposed').lastIndexOf(true);
    if (log.slice(lastProposed + 1).some((e) => e.refineId === refineId)) return { ok: false, error: `refine ${refineId} was already applied` };
    return { ok: true, edits: await applyProposed(refineId) };
  }));

  await condition(() => editsThisRun >= (input.editsPerRun ?? EDITS_PER_RUN) || workflowInfo().continueAsNewSuggested);
  await condition(allHandlersFinished);
  await tail;
  await continueAsNew<typeof harnessWorkflow>({ scopeId, editsPerRun: input.editsPerRun, carry: { nextSeq, headHash, entries: harnessEntries(state), log, refines } });
}
