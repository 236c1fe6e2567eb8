import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { S3Location } from '../config/blob-store';
import { RecurError } from '../errors';
import { BlobStoreError, sha256Hex, SHA256_HEX, type BlobStore } from './blob-store';

/** A request the S3 server did not answer, or refused; retryable when the network or the server was at fault. */
export class S3StoreError extends RecurError {
  constructor(readonly operation: string, readonly key: string, cause: unknown) {
    const status = httpStatus(cause);
    const name = cause instanceof Error ? cause.name : 'Error';
    const refused = status === 403 || name === 'NoSuchBucket' || name === 'AccessDenied' || name === 'InvalidAccessKeyId' || name === 'SignatureDoesNotMatch';
    super(`blob store ${operation} ${key}: ${name}${status === undefined ? '' : ` (HTTP ${status})`}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
      // The SDK has already retried a throttle, a 5xx and a dropped connection a few times; the
      // activity may try again later. BadDigest: the body was damaged on the way, not at its source.
      retryable: !refused && (status === undefined || status >= 500 || status === 429 || name === 'BadDigest'),
      hint: refused ? 'check RECUR_BLOB_STORE names an existing bucket the AWS credentials may read and write (docs/blob-store.md)' : undefined,
    });
  }
}

export interface S3BlobStoreOptions extends S3Location {
  /** An S3-compatible server's URL; requests to it are path-style (`<endpoint>/<bucket>/<key>`). */
  endpoint: string | null;
  region: string | null;
}

/**
 * The BlobStore contract over an S3 bucket, keyed as the local store lays out its files. Nothing
 * the server says about an object (ETag, stored checksum) is trusted for its bytes: put reads an
 * existing copy back and get hashes what it returns, so a copy changed behind the API is caught.
 */
export function createS3BlobStore(opts: S3BlobStoreOptions): BlobStore {
  const client = new S3Client({
    ...(opts.endpoint === null ? {} : { endpoint: opts.endpoint, forcePathStyle: true }),
    ...(opts.region === null ? {} : { region: opts.region }),
    // get hashes every body itself; the SDK's check against the checksum stored at upload would
    // make a copy changed since then an SDK error instead of BlobStoreError corrupt.
    responseChecksumValidation: 'WHEN_REQUIRED',
    // A server that stops answering fails the request instead of holding the activity until its timeout.
    requestHandler: { connectionTimeout: 10_000, socketTimeout: 60_000 },
  });
  const Bucket = opts.bucket;
  const keyOf = (sha256: string): string => {
    if (!SHA256_HEX.test(sha256)) throw new BlobStoreError(sha256, 'invalid-address');
    return `${opts.prefix === '' ? '' : `${opts.prefix}/`}sha256/${sha256.slice(0, 2)}/${sha256}`;
  };

  /** The stored bytes, or null when there is no such object. */
  const read = async (Key: string): Promise<Buffer | null> => {
    try {
      const res = await client.send(new GetObjectCommand({ Bucket, Key }));
      const bytes = await res.Body!.transformToByteArray();
      return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (err) {
      if ((err as Error).name === 'NoSuchKey') return null;
      throw new S3StoreError('get', Key, err);
    }
  };

  return {
    async has(sha256) {
      const Key = keyOf(sha256);
      try {
        await client.send(new HeadObjectCommand({ Bucket, Key }));
        return true;
      } catch (err) {
        // A HEAD answer has no body to tell a missing key from a missing bucket; a put or get says which.
        if ((err as Error).name === 'NotFound') return false;
        throw new S3StoreError('head', Key, err);
      }
    },
    async put(bytes) {
      const ref = { sha256: sha256Hex(bytes), size: bytes.byteLength };
      const Key = keyOf(ref.sha256);
      const stored = await read(Key);
      if (stored !== null && sha256Hex(stored) === ref.sha256) return ref;
      try {
        // One PUT: the largest blob is a snapshot variable (256 MiB, activities/snapshot), far under
        // S3's 5 GiB single-PUT limit. The server checks the body against its SHA-256 and refuses a
        // PUT damaged on the way.
        await client.send(new PutObjectCommand({
          Bucket, Key, Body: bytes, ContentLength: bytes.byteLength, ChecksumSHA256: Buffer.from(ref.sha256, 'hex').toString('base64'),
        }));
      } catch (err) {
        throw new S3StoreError('put', Key, err);
      }
      return ref;
    },
    async get(sha256) {
      const bytes = await read(keyOf(sha256));
      if (bytes === null) throw new BlobStoreError(sha256, 'missing');
      if (sha256Hex(bytes) !== sha256) throw new BlobStoreError(sha256, 'corrupt');
      return bytes;
    },
  };
}

function httpStatus(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}
