import { failure } from '../state/api';
import { blobUrl, BLOB_MAX } from '../model/blob';

export interface FetchedBlob {
  readonly text: string;
  /** Bytes fetched (at most BLOB_MAX when cut) and the blob's whole size. */
  readonly fetched: number;
  readonly size: number;
}

/** Reads a blob from the daemon as UTF-8 text (the cookie goes along, same origin only); `whole` asks for all of it. */
export async function fetchBlob(sha256: string, whole = false): Promise<FetchedBlob> {
  const res = await fetch(blobUrl(sha256, whole ? null : BLOB_MAX), { credentials: 'same-origin' });
  if (!res.ok) throw await failure(res, `blob ${sha256.slice(0, 12)}`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const size = Number(res.headers.get('x-recur-blob-size') ?? bytes.length);
  return { text: new TextDecoder('utf-8').decode(bytes), fetched: bytes.length, size };
}
