import { sha256Hex } from '../../../activities/blob-store';
import type { Keyring, StoredEvent } from '../../../schemas';
import { inOrderCollector, type LogInOrder } from '../../../log/in-order-collector';
import { verifyTree, type AuditProblem, type TreeVerdict } from '../../../log/verify-tree';
import type { Bundle } from './bundle-format';
import { referencedBlobs } from './referenced-blobs';

/** Which public keys a verdict rests on: the operator's (`--pubkey`), or the bundle's own, which prove only that it is self-consistent. */
export interface KeySource {
  readonly source: 'given' | 'bundle';
  readonly keyIds: readonly string[];
}

export interface BundleVerdict extends TreeVerdict {
  readonly keys: KeySource;
  readonly blobs: { readonly needed: number; readonly present: number; readonly unreferenced: number };
}

/** The bundle's records in log order, deduplicated as a reader of the topic would. */
export function bundleLog(bundle: Bundle, treeId = bundle.manifest.treeId): LogInOrder {
  const collector = inOrderCollector(treeId);
  for (const r of bundle.records) collector.accept(r);
  return collector.result();
}

/**
 * Everything `recur audit verify` checks on the topic (verify-tree.ts), on the bundle's records,
 * plus its blobs: each blob the events (and their snapshot manifests) name must be in the bundle
 * with bytes hashing to the name and of the size the event gives. A blob fault names the first
 * event naming the blob. The manifest is not trusted for any of it.
 */
export async function verifyBundle(bundle: Bundle, keyring: Keyring, keys: KeySource, treeId = bundle.manifest.treeId): Promise<BundleVerdict> {
  const log = bundleLog(bundle, treeId);
  const tree = verifyTree(treeId, log, keyring);
  const events = [...log.sessions.values()].flat();
  const byId = new Map<string, StoredEvent>(events.map((e) => [e.eventId, e]));
  const intact = (sha256: string): Buffer | null => {
    const bytes = bundle.blobs.get(sha256);
    return bytes !== undefined && sha256Hex(bytes) === sha256 ? bytes : null;
  };
  const needs = await referencedBlobs(events, async (sha256) => intact(sha256));
  const faults: AuditProblem[] = [];
  for (const need of needs) {
    const e = byId.get(need.eventId)!;
    const at = { eventId: e.eventId, sessionId: e.sessionId, seq: e.seq };
    const bytes = bundle.blobs.get(need.sha256);
    const blob = `${need.field} → blob ${need.sha256}`;
    if (bytes === undefined) faults.push({ ...at, fault: 'blob-missing', detail: `${blob} (${need.size} bytes) is not in the bundle` });
    else if (intact(need.sha256) === null) faults.push({ ...at, fault: 'blob-corrupt', detail: `${blob}: the bundle's copy hashes to ${sha256Hex(bytes)}` });
    else if (bytes.length !== need.size) faults.push({ ...at, fault: 'blob-corrupt', detail: `${blob}: the bundle's copy is ${bytes.length} bytes, the event says ${need.size}` });
  }
  const needed = new Set(needs.map((n) => n.sha256));
  return {
    ...tree, ok: tree.ok && faults.length === 0, faults: [...tree.faults, ...faults], keys,
    blobs: { needed: needs.length, present: needs.length - faults.filter((f) => f.fault === 'blob-missing').length, unreferenced: [...bundle.blobs.keys()].filter((k) => !needed.has(k)).length },
  };
}
