import { inRange } from '../../config';
import { BlobStoreError, type BlobStore } from '../../activities/blob-store';
import { causalOrder } from '../projector/causal-order';
import type { TreeView } from '../projector/read-tree-view';
import type { TreeVerdict } from '../projector/verify-tree';
import type { CatalogReply, TreeReply } from './api-types';
import { DaemonHttpError, outOfRange } from './http-error';
import { checkSessionId } from './parse-requests';
import { conflictFrame, undecodableFrame } from './problem-frames';
import type { ApiReply, ApiRequest } from './routes';

/** What the viewer's read routes read: each a whole answer, so a route only shapes it. */
export interface ViewerDeps {
  /** The tree under a session and its root's harness log, in one read of the topic. */
  readTree: (sessionId: string) => Promise<Pick<TreeView, 'tree' | 'harness'>>;
  /** `recur audit verify <id>`'s verdict, with every key the home ever signed with. */
  verifyTree: (sessionId: string) => Promise<TreeVerdict>;
  /** The store the worker writes cell outputs, responses and snapshots to. */
  blobs: BlobStore;
  catalog: () => Promise<CatalogReply>;
}

const BLOB_STATUS: Record<BlobStoreError['problem'], number> = { 'invalid-address': 400, missing: 404, corrupt: 502 };
const BLOB_MAX = { min: 0, max: Number.MAX_SAFE_INTEGER, integer: true };

/** Pure: the reply for one read of a tree (see TreeReply). */
export function treeReply(view: Pick<TreeView, 'tree' | 'harness'>): TreeReply {
  const { tree, harness } = view;
  const cursor: Record<string, number> = {};
  for (const [sessionId, events] of tree.sessions) if (events.length > 0) cursor[sessionId] = events[events.length - 1].seq;
  return {
    events: causalOrder(tree.events),
    harness: [...harness.events],
    problems: [
      ...tree.undecodable.map(undecodableFrame), ...tree.conflicts.map(conflictFrame),
      // A record without a key reached both readers; the tree's already reported it.
      ...harness.undecodable.filter((r) => r.key !== null).map(undecodableFrame), ...harness.conflicts.map(conflictFrame),
    ],
    cursor,
  };
}

async function blobReply(blobs: BlobStore, sha256: string, query: URLSearchParams): Promise<ApiReply> {
  const raw = query.get('max');
  const max = raw === null ? undefined : raw.trim() === '' ? NaN : Number(raw);
  if (max !== undefined && !inRange(BLOB_MAX, max)) throw outOfRange('max', BLOB_MAX, raw);
  let bytes: Buffer;
  try {
    bytes = await blobs.get(sha256);
  } catch (err) {
    if (err instanceof BlobStoreError) throw new DaemonHttpError(BLOB_STATUS[err.problem], err.message, err.name);
    throw err;
  }
  const binary = { bytes: max === undefined ? bytes : bytes.subarray(0, max), headers: { 'x-recur-blob-size': String(bytes.byteLength) } };
  return { status: 200, body: null, binary };
}

/** The viewer's GET routes (docs/viewer.md "API for the viewer"); undefined for any other request. */
export function viewerRoute(deps: ViewerDeps, req: ApiRequest): Promise<ApiReply> | undefined {
  if (req.method !== 'GET') return undefined;
  const [, collection, id, action, ...rest] = req.segments;
  const ok = async (body: Promise<unknown>): Promise<ApiReply> => ({ status: 200, body: await body });
  if (collection === 'sessions' && id !== undefined && rest.length === 0) {
    if (action === 'tree') return ok(deps.readTree(checkSessionId(id)).then(treeReply));
    if (action === 'verify') return ok(deps.verifyTree(checkSessionId(id)));
  }
  if (collection === 'blobs' && id !== undefined && action === undefined) return blobReply(deps.blobs, id, req.query);
  if (collection === 'catalog' && id === undefined) return ok(deps.catalog());
  return undefined;
}
