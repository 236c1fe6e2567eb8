import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobStoreError, createLocalBlobStore, inlineOrBlob, type BlobStore } from '../../activities/blob-store';

describe('local content-addressed blob store', () => {
  let root: string;
  let store: BlobStore;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'recur-blobs-'));
    store = createLocalBlobStore(root);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const bytes = Buffer.from('a large cell output\n'.repeat(100));
  const sha = createHash('sha256').update(bytes).digest('hex');

  test('put returns the SHA-256 and size, stores under sha256/<2 hex>/<hex>, and get returns the bytes', async () => {
    expect(await store.put(bytes)).toEqual({ sha256: sha, size: bytes.length });
    expect(readdirSync(join(root, 'sha256', sha.slice(0, 2)))).toEqual([sha]);
    expect((await store.get(sha)).equals(bytes)).toBe(true);
    expect(await store.has(sha)).toBe(true);
  });

  test('putting the same content again, even concurrently, leaves one file and no temp files', async () => {
    const refs = await Promise.all([store.put(bytes), store.put(bytes), store.put(Buffer.from(bytes))]);
    expect(new Set(refs.map((r) => r.sha256))).toEqual(new Set([sha]));
    expect(readdirSync(join(root, 'sha256', sha.slice(0, 2)))).toEqual([sha]);
  });

  test('get reports a missing blob and a blob whose bytes changed on disk', async () => {
    await expect(store.get(sha)).rejects.toMatchObject({ name: 'BlobStoreError', problem: 'missing', sha256: sha });
    await store.put(bytes);
    writeFileSync(join(root, 'sha256', sha.slice(0, 2), sha), 'tampered');
    await expect(store.get(sha)).rejects.toMatchObject({ problem: 'corrupt' });
  });

  test.each([
    ['different bytes', () => 'tampered'],
    ['bytes of the same length', () => Buffer.from(bytes).fill(0x41, 0, 1)],
    ['a truncated file', () => bytes.subarray(0, 10)],
  ])('putting the right bytes again heals a blob corrupted to %s', async (_what, corrupt) => {
    await store.put(bytes);
    const file = join(root, 'sha256', sha.slice(0, 2), sha);
    writeFileSync(file, corrupt());
    await expect(store.get(sha)).rejects.toMatchObject({ problem: 'corrupt' });
    expect(await store.put(bytes)).toEqual({ sha256: sha, size: bytes.length });
    expect((await store.get(sha)).equals(bytes)).toBe(true);
    expect(readdirSync(join(root, 'sha256', sha.slice(0, 2)))).toEqual([sha]);
  });

  test('addresses that are not a SHA-256 hex digest never reach the file system', async () => {
    await expect(store.get('../../etc/passwd')).rejects.toBeInstanceOf(BlobStoreError);
    await expect(store.has('ABC')).rejects.toMatchObject({ problem: 'invalid-address' });
  });

  test('inlineOrBlob keeps short text inline and stores long text with a preview', async () => {
    expect(await inlineOrBlob(store, 'short', 10)).toEqual({ preview: 'short', blob: null });
    const long = 'x'.repeat(9) + '😀' + 'tail';
    const { preview, blob } = await inlineOrBlob(store, long, 10);
    expect(preview).toBe('x'.repeat(9)); // the emoji's surrogate pair is not split
    expect((await store.get(blob!.sha256)).toString('utf8')).toBe(long);
    expect(blob!.size).toBe(Buffer.byteLength(long));
  });
});
