import { BLOB_MAX } from '../model/blob';
import { source } from '../state/source';

export interface FetchedBlob {
  readonly text: string;
  /** Bytes fetched (at most BLOB_MAX when cut) and the blob's whole size. */
  readonly fetched: number;
  readonly size: number;
}

/** Reads a blob from the page's source as UTF-8 text; `whole` asks for all of it. */
export async function fetchBlob(sha256: string, whole = false): Promise<FetchedBlob> {
  const { bytes, size } = await source().blob(sha256, whole ? null : BLOB_MAX);
  return { text: new TextDecoder('utf-8').decode(bytes), fetched: bytes.length, size };
}
