import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { BlobStoreError, sha256Hex } from '../../activities/blob-store';
import { S3StoreError } from '../../activities/blob-store-s3';
import { openBlobStore } from '../../activities/open-blob-store';
import { loadConfig } from '../../config';
import { stackPaths } from '../../config/home-paths';
import { cliInProcess } from '../helpers/cli-in-process';
import { SessionHarness, py } from '../helpers/session-harness';
import { s3Env, testS3 } from '../helpers/test-stack';

const s3 = testS3();
const env = s3Env();
const bucket = `recur-it-${randomBytes(4).toString('hex')}`;
// The SDK's credential chain reads the process's environment, as it would in a worker.
Object.assign(process.env, env);
afterAll(() => {
  for (const k of Object.keys(env)) delete process.env[k];
});

const admin = new S3Client({
  endpoint: s3.endpoint, forcePathStyle: true, region: s3.region,
  credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
});
beforeAll(() => admin.send(new CreateBucketCommand({ Bucket: bucket })));
afterAll(() => admin.destroy());

const storeAt = (prefix: string) => openBlobStore(loadConfig({ ...process.env, RECUR_BLOB_STORE: `s3://${bucket}/${prefix}` }));
const keyOf = (prefix: string, sha: string) => `${prefix}/sha256/${sha.slice(0, 2)}/${sha}`;
const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e);
async function keysUnder(prefix: string): Promise<string[]> {
  const r = await admin.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/` }));
  return (r.Contents ?? []).map((o) => o.Key!).sort();
}

describe('the S3 blob store against a real S3-compatible server (VersityGW)', () => {
  it('stores a blob under <prefix>/sha256/<2 hex>/<hex>, reads it back, and puts the same bytes idempotently', async () => {
    const store = storeAt('basic');
    const bytes = Buffer.from(`round trip ${randomBytes(8).toString('hex')}`);
    const ref = await store.put(bytes);
    expect(ref).toEqual({ sha256: sha256Hex(bytes), size: bytes.length });
    expect(await store.has(ref.sha256)).toBe(true);
    expect((await store.get(ref.sha256)).equals(bytes)).toBe(true);
    expect(await store.put(bytes)).toEqual(ref);
    expect(await keysUnder('basic')).toEqual([keyOf('basic', ref.sha256)]);
    // The posix backend keeps each object as a file of the same name: the layout is the local store's.
    expect(existsSync(join(s3.dataDir, bucket, keyOf('basic', ref.sha256)))).toBe(true);
  });

  it('reports a missing blob as BlobStoreError missing, and a missing bucket as a refusal that no retry mends', async () => {
    const absent = sha256Hex(Buffer.from('never stored'));
    expect(await storeAt('basic').has(absent)).toBe(false);
    const missing = await failure(storeAt('basic').get(absent));
    expect(missing).toBeInstanceOf(BlobStoreError);
    expect(missing).toMatchObject({ problem: 'missing' });
    const elsewhere = openBlobStore(loadConfig({ ...process.env, RECUR_BLOB_STORE: `s3://${bucket}-absent` }));
    const refused = await failure(elsewhere.get(absent));
    expect(refused).toBeInstanceOf(S3StoreError);
    expect(refused).toMatchObject({ retryable: false, message: expect.stringContaining('NoSuchBucket') });
  });

  it.each([
    ['rewritten through the S3 API', async (key: string) => { await admin.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'tampered' })); }],
    // Behind the server's back: its stored ETag and checksum still describe the old bytes.
    ['changed in the backend directory', async (key: string) => writeFileSync(join(s3.dataDir, bucket, key), 'bit rot!')],
  ])('finds a copy %s corrupt on get, and put replaces it', async (_how, corrupt) => {
    const store = storeAt('heal');
    const bytes = Buffer.from(`heal me ${randomBytes(8).toString('hex')}`);
    const ref = await store.put(bytes);
    await corrupt(keyOf('heal', ref.sha256));
    const corrupted = await failure(store.get(ref.sha256));
    expect(corrupted).toBeInstanceOf(BlobStoreError);
    expect(corrupted).toMatchObject({ problem: 'corrupt' });
    expect(await store.has(ref.sha256)).toBe(true);
    await store.put(bytes);
    expect((await store.get(ref.sha256)).equals(bytes)).toBe(true);
  });
});

describe('a session with RECUR_BLOB_STORE=s3://… (real Temporal, Kafka, Jupyter; scripted model)', () => {
  const prefix = 'session';
  const h = new SessionHarness({ ...env, RECUR_BLOB_STORE: `s3://${bucket}/${prefix}` });
  const local = stackPaths(h.config).blobs;
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  it('puts its cell output and snapshot in the bucket, not the home, and replay --verify reads them back from there', async () => {
    // Content addressing: an output another test of the tier also printed would be in the home's store already.
    const tag = randomBytes(6).toString('hex');
    const run = await h.run({ root: [py('a = 6'), py(`big = "y" * 20000 + "${tag}"\nprint(big)`), py('print(a * 7)'), 'done'] }, 'to the bucket', { snapshotEveryCells: 2 });
    expect(run.result).toEqual({ status: 'completed', answer: 'done' });
    const [, bigCell] = run.of('CellExecuted');
    const [snap] = run.of('KernelSnapshotted');
    expect(snap).toMatchObject({ variables: 2, unsaved: [] });
    const keys = await keysUnder(prefix);
    for (const sha of [bigCell.outputsBlob!.sha256, snap.manifest.sha256]) {
      expect(keys).toContain(keyOf(prefix, sha));
      expect(existsSync(join(local, 'sha256', sha.slice(0, 2), sha))).toBe(false);
    }

    const replayed = await cliInProcess(['replay', run.id, '--verify', '--json'], { ...env, RECUR_BLOB_STORE: `s3://${bucket}/${prefix}` });
    expect({ code: replayed.code, message: replayed.message }).toEqual({ code: 0, message: '' });
    expect(JSON.parse(replayed.out.at(-1)!)).toMatchObject({ kind: 'summary', cells: 3, same: 3 });
    // The home's own directory does not hold the output: a replay that reads it cannot check that cell.
    const fromHome = await cliInProcess(['replay', run.id, '--verify', '--json'], { RECUR_BLOB_STORE: '' });
    expect(fromHome.code).toBe(3);
    expect(JSON.parse(fromHome.out.at(-1)!)).toMatchObject({ unchecked: 1 });
  });

  it('restores a lost kernel from the snapshot it stored in the bucket', async () => {
    const run = await h.run({
      root: [py('a = 1'), py('b = "z" * 5000'), py('c = a + 1'), py('import os, signal\nos.kill(os.getpid(), signal.SIGKILL)'), py('print(a, len(b), c)'), 'restored'],
    }, 'restore from the bucket', { snapshotEveryCells: 2 });
    expect(run.result).toEqual({ status: 'completed', answer: 'restored' });
    const [snap] = run.of('KernelSnapshotted');
    expect(await keysUnder(prefix)).toContain(keyOf(prefix, snap.manifest.sha256));
    expect(run.of('KernelRestored')).toEqual([expect.objectContaining({ fromSnapshotSeq: snap.coversSeq, restored: ['a', 'b'], failed: [] })]);
    expect(run.of('CellExecuted').at(-1)!.outputs).toMatch(/\n1 5000 2$/);
  });
});
