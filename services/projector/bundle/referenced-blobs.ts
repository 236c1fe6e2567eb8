import { parseManifest } from '../../../activities/snapshot/manifest';
import type { BlobRef, StoredEvent } from '../../../schemas';

/** One blob a tree needs, and the first place that names it. */
export interface BlobNeed {
  readonly sha256: string;
  readonly size: number;
  /** The event naming it (for a snapshot's variable: the KernelSnapshotted). */
  readonly eventId: string;
  /** Where in that event: a field path (`outputsBlob`, `files[2].diff`), or `manifest → variable x`. */
  readonly field: string;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

function isBlobRef(v: unknown): v is BlobRef {
  const r = v as Partial<BlobRef> | null;
  return typeof r === 'object' && r !== null && typeof r.sha256 === 'string' && SHA256_HEX.test(r.sha256) && typeof r.size === 'number';
}

/** Every BlobRef anywhere in an event, nested records and arrays included, so types added later are covered too. */
export function blobRefsIn(value: unknown, path = ''): Array<{ field: string; ref: BlobRef }> {
  if (isBlobRef(value)) return [{ field: path, ref: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => blobRefsIn(v, `${path}[${i}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([k, v]) => (k === 'type' ? [] : blobRefsIn(v, path ? `${path}.${k}` : k)));
}

/**
 * The blobs a bundle must hold for a tree (docs/audit-bundles.md): every BlobRef of every event,
 * then every variable's pickle that a KernelSnapshotted manifest names. A manifest is read with
 * `get` when the blob is at hand; one missing or unreadable is itself reported as missing or
 * corrupt, so what it would name cannot be listed. Each blob once, at the first event naming it.
 */
export async function referencedBlobs(events: readonly StoredEvent[], get: (sha256: string) => Promise<Buffer | null>): Promise<BlobNeed[]> {
  const needs = new Map<string, BlobNeed>();
  const add = (need: BlobNeed): void => {
    if (!needs.has(need.sha256)) needs.set(need.sha256, need);
  };
  for (const e of events) {
    for (const { field, ref } of blobRefsIn(e.event)) add({ sha256: ref.sha256, size: ref.size, eventId: e.eventId, field });
    if (e.event.type !== 'KernelSnapshotted') continue;
    const bytes = await get(e.event.manifest.sha256);
    if (bytes === null) continue;
    let variables;
    try {
      variables = parseManifest(bytes).variables;
    } catch {
      continue; // names nothing that can be listed; the manifest blob itself is still checked like any other
    }
    for (const v of variables) add({ sha256: v.sha256, size: v.size, eventId: e.eventId, field: `manifest → variable ${v.name}` });
  }
  return [...needs.values()];
}
