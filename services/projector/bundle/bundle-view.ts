import { createHash, type KeyObject } from 'node:crypto';
import { BlobStoreError, sha256Hex, SHA256_HEX, type BlobStore } from '../../../activities/blob-store';
import { HttpError } from '../../../errors';
import { EventCollector } from '../../../log/event-collector';
import { decodeEvent, HARNESS_PREFIX, keyringOf, logKeyId, sessionRoot, type StoredEvent } from '../../../schemas';
import type { BundleViewInfo, CatalogReply, KeyFingerprint } from '../../daemon/api-types';
import type { ViewerDeps } from '../../daemon/route-types';
import { publicKeyFromPem } from '../../home/log-keys';
import { catalogEntries, emptyCatalog, foldCatalog } from '../catalog';
import type { TreeView } from '../tree-cache';
import type { Bundle } from './bundle-format';
import { verifyBundle, type BundleVerdict } from './verify-bundle';

/** The full SHA-256 of the raw Ed25519 key: what an auditor compares out of band (the key id is its first 32 digits). */
export function keyFingerprint(key: KeyObject): KeyFingerprint {
  const raw = key.export({ format: 'der', type: 'spki' }).subarray(-32);
  return { keyId: logKeyId(key), sha256: createHash('sha256').update(raw).digest('hex') };
}

/** What a bundle's verdict rests on: the keys given (`--pubkey`), else the bundle's own, which prove only self-consistency. */
export interface BundleKeys {
  source: 'given' | 'bundle';
  keys: KeyObject[];
}

export function bundleKeys(file: string, bundle: Bundle, given: readonly KeyObject[]): BundleKeys {
  if (given.length > 0) return { source: 'given', keys: [...given] };
  return { source: 'bundle', keys: [...bundle.keys].map(([keyId, pem]) => publicKeyFromPem(pem, `${file}: keys/${keyId}.pem`)) };
}

export function verifyWith(bundle: Bundle, keys: BundleKeys, treeId?: string): Promise<BundleVerdict> {
  const keyring = keyringOf(keys.keys);
  return verifyBundle(bundle, keyring, { source: keys.source, keyIds: [...keyring.keys()] }, treeId);
}

export function bundleViewInfo(file: string, bundle: Bundle, keys: BundleKeys, verifiedAt: string | null): BundleViewInfo {
  return {
    file, treeId: bundle.manifest.treeId, exportedAt: bundle.manifest.exportedAt,
    keys: { source: keys.source, fingerprints: keys.keys.map(keyFingerprint) }, verifiedAt,
  };
}

/** The tree under `sessionId` and its root's harness log, from the bundle's records as a scan of the topic would collect them. */
export function bundleTree(bundle: Bundle, sessionId: string): TreeView {
  const tree = new EventCollector({ sessionId, descendants: true });
  const harness = new EventCollector({ sessionId: HARNESS_PREFIX + sessionRoot(sessionId), descendants: false });
  for (const r of bundle.records) {
    tree.accept(r);
    harness.accept(r);
  }
  const view = { tree: tree.result(), harness: harness.result() };
  if (view.tree.events.length === 0) throw new HttpError(404, `${sessionId} is not in this bundle (it holds ${bundle.manifest.treeId})`, 'NotFoundError');
  return view;
}

/** The sessions list's summary of the bundle's tree, folded as the daemon's catalog folds the topic. */
export function bundleCatalog(bundle: Bundle): CatalogReply {
  const catalog = emptyCatalog();
  let undecodable = 0;
  for (const r of bundle.records) {
    let e: StoredEvent;
    if (r.value === null) {
      undecodable++;
      continue;
    }
    try {
      e = decodeEvent(r.value);
    } catch {
      undecodable++;
      continue;
    }
    foldCatalog(catalog, e);
  }
  return { roots: catalogEntries(catalog), complete: true, undecodable };
}

/** The bundle's blobs, each checked against its name before it is served, as the home's store checks its files. */
export function bundleBlobStore(bundle: Bundle): BlobStore {
  const get = async (sha256: string): Promise<Buffer> => {
    if (!SHA256_HEX.test(sha256)) throw new BlobStoreError(sha256, 'invalid-address');
    const bytes = bundle.blobs.get(sha256);
    if (bytes === undefined) throw new BlobStoreError(sha256, 'missing');
    if (sha256Hex(bytes) !== sha256) throw new BlobStoreError(sha256, 'corrupt');
    return bytes;
  };
  return {
    get,
    has: async (sha256) => bundle.blobs.has(sha256),
    put: () => Promise.reject(new HttpError(403, 'a bundle is read-only', 'ForbiddenError')),
  };
}

/** The viewer's read routes over one bundle: no Kafka, no home; the verdict is computed once, on first ask. */
export function bundleViewerDeps(bundle: Bundle, keys: BundleKeys): ViewerDeps {
  const verdicts = new Map<string, Promise<BundleVerdict>>();
  return {
    readTree: async (id) => bundleTree(bundle, id),
    verifyTree: (id) => {
      bundleTree(bundle, id);
      let v = verdicts.get(id);
      if (!v) verdicts.set(id, (v = verifyWith(bundle, keys, id)));
      return v;
    },
    blobs: bundleBlobStore(bundle),
    catalog: async () => bundleCatalog(bundle),
  };
}
