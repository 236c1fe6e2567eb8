import { BlobStoreError, type BlobStore } from '../../../activities/blob-store';
import { isInSessionTree } from '../../../schemas';
import type { LogRecord } from '../../../log/event-collector';
import { inOrderCollector } from '../../../log/in-order-collector';
import { BUNDLE_FORMAT, type Bundle } from './bundle-format';
import { referencedBlobs, type BlobNeed } from './referenced-blobs';

export interface CollectBundleOptions {
  treeId: string;
  topic: string;
  /** The topic's records (any; those keyed outside the tree are left out), in the order it holds them. */
  records: readonly LogRecord[];
  blobs: BlobStore;
  /** The public key (SPKI PEM) of a key id, or null when this home has none. */
  publicKey: (keyId: string) => string | null;
  now: Date;
}

/**
 * A tree's bundle: its records untouched, every blob they need (referenced-blobs.ts) that the
 * store holds intact, and the public key of every key that signed one of its events. What the
 * store lacks (or holds corrupt) is listed in `missingBlobs`, and a key this home lacks is
 * simply absent, so the bundle is still written and its verification names them.
 */
export async function collectBundle(o: CollectBundleOptions): Promise<Bundle & { missingKeys: string[] }> {
  const collector = inOrderCollector(o.treeId);
  const kept: LogRecord[] = [];
  for (const r of o.records) {
    const key = r.key?.toString('utf8');
    if (key === undefined || !isInSessionTree(key, o.treeId)) continue;
    kept.push(r);
    collector.accept(r);
  }
  const events = [...collector.result().sessions.values()].flat();
  const blobs = new Map<string, Buffer>();
  const fetch = async (sha256: string): Promise<Buffer | null> => {
    if (blobs.has(sha256)) return blobs.get(sha256)!;
    try {
      const bytes = await o.blobs.get(sha256);
      blobs.set(sha256, bytes);
      return bytes;
    } catch (e) {
      if (e instanceof BlobStoreError) return null;
      throw e;
    }
  };
  const needs = await referencedBlobs(events, fetch);
  const missingBlobs: BlobNeed[] = [];
  for (const need of needs) if ((await fetch(need.sha256)) === null) missingBlobs.push(need);
  const keyIds = [...new Set(events.map((e) => e.keyId).filter((k): k is string => k !== null))].sort();
  const keys = new Map(keyIds.flatMap((k) => {
    const pem = o.publicKey(k);
    return pem === null ? [] : [[k, pem] as const];
  }));
  return {
    manifest: {
      format: BUNDLE_FORMAT, treeId: o.treeId, topic: o.topic, exportedAt: o.now.toISOString(), records: kept.length,
      blobs: [...blobs].map(([sha256, b]) => ({ sha256, size: b.length })), missingBlobs, keys: [...keys.keys()],
    },
    records: kept, blobs, keys, missingKeys: keyIds.filter((k) => !keys.has(k)),
  };
}
