import { inRange } from '../../config';
import { BlobStoreError, type BlobStore } from '../../activities/blob-store';
import { HttpError } from '../../errors';
import { outOfRange } from './http-error';
import { checkSessionId } from './parse-requests';
import type { ApiReply, ApiRequest, ViewerDeps } from './route-types';
import { treeLines } from './tree-lines';

const BLOB_STATUS: Record<BlobStoreError['problem'], number> = { 'invalid-address': 400, missing: 404, corrupt: 502 };
const BLOB_MAX = { min: 0, max: Number.MAX_SAFE_INTEGER, integer: true };

async function blobReply(blobs: BlobStore, sha256: string, query: URLSearchParams): Promise<ApiReply> {
  const raw = query.get('max');
  const max = raw === null ? undefined : raw.trim() === '' ? NaN : Number(raw);
  if (max !== undefined && !inRange(BLOB_MAX, max)) throw outOfRange('max', BLOB_MAX, raw);
  let bytes: Buffer;
  try {
    bytes = await blobs.get(sha256);
  } catch (err) {
    if (err instanceof BlobStoreError) throw new HttpError(BLOB_STATUS[err.problem], err.message, err.name);
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
    if (action === 'tree') return deps.readTree(checkSessionId(id)).then((view) => ({ status: 200, body: null, lines: treeLines(view) }));
    if (action === 'verify') return ok(deps.verifyTree(checkSessionId(id)));
  }
  if (collection === 'blobs' && id !== undefined && action === undefined) return blobReply(deps.blobs, id, req.query);
  if (collection === 'catalog' && id === undefined) return ok(deps.catalog());
  return undefined;
}
