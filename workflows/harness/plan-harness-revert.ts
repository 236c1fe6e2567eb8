import { entryKey, type HarnessEditSummary, type HarnessState } from './harness-types';
import { canonical } from './check-harness-edit';

export type RevertStep = { kind: string; name: string; before: string | null; after: string | null; revertOf: string };
export type RevertPlan = { ok: true; steps: RevertStep[] } | { ok: false; error: string };
/** An edit's values as its HarnessEdited event holds them. */
export type EditValues = { before: string | null; after: string | null };

/** The applied edits a revert of `id` (an edit id, or a refine id for all its edits) undoes, newest first. */
export function revertTargets(log: readonly HarnessEditSummary[], id: string): HarnessEditSummary[] {
  return log.filter((e) => e.result === 'applied' && (e.editId === id || e.refineId === id)).reverse();
}

/**
 * Plans the revert of `id`: each entry goes back to its `before` (from `values`, read from the
 * log). Refused when an entry has changed since, because the result would then not be the exact
 * prior state; revert the later edit first. Pure.
 */
export function planHarnessRevert(
  state: HarnessState, log: readonly HarnessEditSummary[], id: string, values: ReadonlyMap<string, EditValues>,
): RevertPlan {
  const targets = revertTargets(log, id);
  if (targets.length === 0) {
    const seen = log.find((e) => e.editId === id || e.refineId === id);
    return { ok: false, error: seen ? `${id} was not applied (${seen.result}); there is nothing to revert` : `no harness edit or refine with id ${id} in this scope` };
  }
  const done = log.find((e) => e.result === 'applied' && targets.some((t) => t.editId === e.revertOf));
  if (done) return { ok: false, error: `${id} has already been reverted (by ${done.editId})` };
  const current = new Map([...state].map(([k, e]) => [k, canonical(e.value)]));
  const steps: RevertStep[] = [];
  for (const t of targets) {
    const v = values.get(t.editId);
    if (!v) return { ok: false, error: `the values of ${t.editId} were not found in the log` };
    const key = entryKey(t.kind, t.name);
    const now = current.get(key) ?? null;
    if (now !== v.after) {
      const later = log.filter((e) => e.result === 'applied' && entryKey(e.kind, e.name) === key).at(-1);
      return { ok: false, error: `${t.kind} "${t.name}" changed after ${t.editId} (last by ${later?.editId ?? '?'}); revert that edit first` };
    }
    steps.push({ kind: t.kind, name: t.name, before: now, after: v.before, revertOf: t.editId });
    if (v.before === null) current.delete(key);
    else current.set(key, v.before);
  }
  return { ok: true, steps };
}
