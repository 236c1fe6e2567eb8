import { RecurError } from '../../errors';

/** The most of a blob the viewer fetches at once; the rest stays on the daemon. */
export const BLOB_MAX = 262144;

const SHA256 = /^[0-9a-f]{64}$/;

export function blobUrl(sha256: string, max: number | null = BLOB_MAX): string {
  if (!SHA256.test(sha256)) throw new RecurError(`not a blob address: ${sha256}`);
  return `/v1/blobs/${sha256}${max === null ? '' : `?max=${max}`}`;
}

/** `first 262,144 of 1,048,576 bytes` when the fetch was cut, else the size. */
export function blobCaption(fetched: number, size: number): string {
  const n = (x: number) => x.toLocaleString('en-US');
  return fetched < size ? `first ${n(fetched)} of ${n(size)} bytes` : `${n(size)} bytes`;
}
