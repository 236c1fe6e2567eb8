import { RecurError } from '../../errors';

/** What the replay lists of a kernel snapshot: the names in its manifest (format recur.kernel-snapshot/1, activities/snapshot/manifest.ts). */
export interface ManifestNames {
  readonly variables: readonly string[];
  readonly modules: readonly string[];
  /** Names the snapshot could not save (unpicklable or over a size limit). */
  readonly missing: readonly string[];
}

export const SNAPSHOT_FORMAT = 'recur.kernel-snapshot/1';

const names = (v: unknown): string[] =>
  (Array.isArray(v) ? v : []).flatMap((x: unknown) => (x !== null && typeof x === 'object' && typeof (x as { name?: unknown }).name === 'string' ? [(x as { name: string }).name] : []));

/** Reads a manifest blob's text; throws on anything that is not a manifest of the known format. */
export function manifestNames(text: string): ManifestNames {
  const m = JSON.parse(text) as Record<string, unknown> | null;
  if (m === null || typeof m !== 'object' || m.format !== SNAPSHOT_FORMAT) throw new RecurError(`not a ${SNAPSHOT_FORMAT} manifest`);
  return { variables: names(m.variables), modules: names(m.modules), missing: [...names(m.unsaved), ...names(m.oversize)] };
}
