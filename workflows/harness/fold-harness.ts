import { entryKey, type HarnessEditRecord, type HarnessEntry, type HarnessKind, type HarnessState } from './harness-types';

/**
 * The harness state is the fold of its applied edits, in log order: `after` is the entry's new
 * value (null deletes it). Refused and proposed edits change nothing. Pure.
 */
export function foldHarness(edits: readonly HarnessEditRecord[], from: HarnessState = new Map()): Map<string, HarnessEntry> {
  const state = new Map(from);
  for (const e of edits) {
    if (e.result !== 'applied') continue;
    const key = entryKey(e.kind, e.name);
    if (e.after === null) state.delete(key);
    else state.set(key, { kind: e.kind as HarnessKind, name: e.name, value: JSON.parse(e.after), editId: e.editId });
  }
  return state;
}

/** Entries sorted by kind then name: a stable order for prompts, listings and comparisons. */
export function harnessEntries(state: HarnessState, kind?: HarnessKind): HarnessEntry[] {
  return [...state.values()]
    .filter((e) => kind === undefined || e.kind === kind)
    .sort((a, b) => (a.kind === b.kind ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.kind < b.kind ? -1 : 1));
}
