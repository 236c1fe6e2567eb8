import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { RecurError } from '../errors';
import type { BlobRef } from '../schemas';
import { cutChars } from '../schemas/field-limits';

/**
 * Content-addressed storage for payloads too large to log inline (cell outputs, responses,
 * snapshots). Events carry a BlobRef; the bytes live here, in a local directory or an S3 bucket
 * (blob-store-s3.ts; open-blob-store.ts picks one from config): put is idempotent and replaces a
 * stored copy that no longer matches its hash; get verifies what it returns.
 */
export interface BlobStore {
  put(bytes: Uint8Array): Promise<BlobRef>;
  /** Throws BlobStoreError when the blob is missing or its bytes no longer hash to `sha256`. */
  get(sha256: string): Promise<Buffer>;
  has(sha256: string): Promise<boolean>;
}

export class BlobStoreError extends RecurError {
  constructor(readonly sha256: string, readonly problem: 'missing' | 'corrupt' | 'invalid-address', cause?: unknown) {
    super(`blob ${sha256}: ${problem}`, { cause, retryable: false });
  }
}

export const SHA256_HEX = /^[0-9a-f]{64}$/;

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A store in a local directory: `<root>/sha256/<first two hex digits>/<hex>`. */
export function createLocalBlobStore(root: string): BlobStore {
  const pathOf = (sha256: string): string => {
    if (!SHA256_HEX.test(sha256)) throw new BlobStoreError(sha256, 'invalid-address');
    return join(root, 'sha256', sha256.slice(0, 2), sha256);
  };

  const has = async (sha256: string): Promise<boolean> => {
    try {
      await stat(pathOf(sha256));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  };

  /** Whether the file at `path` holds exactly `bytes` (false when it is absent). */
  const holds = async (path: string, bytes: Uint8Array): Promise<boolean> => {
    try {
      return (await readFile(path)).equals(bytes);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  };

  return {
    has,
    async put(bytes) {
      const ref = { sha256: sha256Hex(bytes), size: bytes.byteLength };
      const path = pathOf(ref.sha256);
      // An existing file counts only if it still holds these bytes: putting the right bytes heals a corrupted blob.
      if (await holds(path, bytes)) return ref;
      await mkdir(dirname(path), { recursive: true });
      // Write beside the target and rename: readers never see a partial blob, two writers of the
      // same content just replace identical bytes, and a corrupted file is replaced whole.
      const tmp = `${path}.${randomUUID()}.tmp`;
      try {
        const file = await open(tmp, 'wx');
        try {
          await file.writeFile(bytes);
          await file.sync();
        } finally {
          await file.close();
        }
        await rename(tmp, path);
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
      return ref;
    },
    async get(sha256) {
      let bytes: Buffer;
      try {
        bytes = await readFile(pathOf(sha256));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobStoreError(sha256, 'missing', err);
        throw err;
      }
      if (sha256Hex(bytes) !== sha256) throw new BlobStoreError(sha256, 'corrupt');
      return bytes;
    },
  };
}

/**
 * Splits text for an event field pair like `outputs` + `outputsBlob`: text that fits is kept
 * inline with no blob; longer text keeps a preview inline and stores the whole in `store`.
 */
export async function inlineOrBlob(
  store: BlobStore,
  text: string,
  /** The field's inline size, from schemas/field-limits.ts. */
  maxChars: number,
): Promise<{ preview: string; blob: BlobRef | null }> {
  if (text.length <= maxChars) return { preview: text, blob: null };
  const blob = await store.put(Buffer.from(text, 'utf8'));
  return { preview: cutChars(text, maxChars), blob };
}
