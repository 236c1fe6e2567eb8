import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalBlobStore, type BlobStore } from '../../activities/blob-store';
import { MANIFEST_FORMAT } from '../../activities/snapshot/manifest';
import type { BlobRef, RecurEventInput } from '../../schemas';
import { readBundle, writeBundle, type Bundle } from '../../services/projector/bundle/bundle-format';
import { collectBundle } from '../../services/projector/bundle/collect-bundle';
import { blobRefsIn } from '../../services/projector/bundle/referenced-blobs';
import { verifyBundle } from '../../services/projector/bundle/verify-bundle';
import { cliInProcess } from '../helpers/cli-in-process';
import { FIXTURE_KEY, chain, ev, records } from '../helpers/replay-tree-fixture';
import { testLogKey } from '../helpers/test-log-key';

const dir = () => mkdtempSync(join(tmpdir(), 'recur-bundle-test-'));
const given = { source: 'given' as const, keyIds: [FIXTURE_KEY.keyId] };

/**
 * A root whose cell output went to a blob and whose kernel was snapshotted (a manifest blob
 * naming one variable's pickle), with a child; records of another tree sit beside it.
 */
async function tree(store: BlobStore, opts: { skip?: 'output' | 'pickle' } = {}) {
  const output = Buffer.from('x'.repeat(20_000));
  const pickle = Buffer.from('pickled df');
  const outputRef: BlobRef = opts.skip === 'output' ? { sha256: 'a'.repeat(64), size: 20_000 } : await store.put(output);
  const pickleRef: BlobRef = opts.skip === 'pickle' ? { sha256: 'b'.repeat(64), size: 10 } : await store.put(pickle);
  const manifest = await store.put(Buffer.from(JSON.stringify({
    format: MANIFEST_FORMAT, coversSeq: 3, python: '3.13', picklers: {}, limits: { maxVariableBytes: null, maxTotalBytes: null },
    variables: [{ name: 'df', sha256: pickleRef.sha256, size: pickleRef.size, pickler: 'pickle' }], modules: [], unsaved: [], oversize: [], bytes: 10,
  })));
  const executed: RecurEventInput = { ...(ev.executed('r/2', 'print(big)', 'xxxx…') as object), outputsBlob: outputRef } as RecurEventInput;
  const snapshot: RecurEventInput = { type: 'KernelSnapshotted', manifest, coversSeq: 3, variables: 1, bytes: 10, unsaved: [], oversize: [], durationMs: 5 };
  const root = chain('r', [[100, ev.started('root', 0)], [110, ev.spawned('r/kid')], [120, ev.request('print(big)')], [130, executed], [140, snapshot], [150, ev.childDone('r/kid')], [400, ev.completed('all done')]]);
  const kid = chain('r/kid', [[111, ev.started('kid', 1, 'r')], [140, ev.completed('kid done')]]);
  const other = chain('rx', [[100, ev.started('root', 0)]]);
  const recs = [...records('r', root.values), ...records('rx', other.values, 7), ...records('r/kid', kid.values, 20)];
  return { recs, outputRef, pickleRef, manifest, executedId: root.records[3].eventId, snapshotId: root.records[4].eventId, endId: root.records[6].eventId };
}

async function bundled(store: BlobStore, t: Awaited<ReturnType<typeof tree>>, publicKey = (): string | null => FIXTURE_KEY.publicPem) {
  return collectBundle({ treeId: 'r', topic: 'recur.events.v1', records: t.recs, blobs: store, publicKey, now: new Date(0) });
}

async function roundTrip(bundle: Bundle): Promise<Bundle> {
  const file = join(dir(), 'tree.tar.gz');
  await writeBundle(file, bundle);
  return readBundle(file);
}

describe('audit bundle', () => {
  it('finds BlobRefs at any depth, in records and arrays', () => {
    const ref = { sha256: 'c'.repeat(64), size: 3 };
    expect(blobRefsIn({ type: 'X', a: ref, files: [{ path: 'p', diff: ref }, { path: 'q', diff: null }], n: 1 })).toEqual([{ field: 'a', ref }, { field: 'files[0].diff', ref }]);
  });

  it('round-trips the records byte for byte in log order, every blob named (snapshot variables too) and the signing key', async () => {
    const store = createLocalBlobStore(dir());
    const t = await tree(store);
    const bundle = await bundled(store, t);
    expect(bundle.missingKeys).toEqual([]);
    const back = await roundTrip(bundle);
    const inTree = t.recs.filter((r) => r.key!.toString() !== 'rx');
    expect(back.records).toEqual(inTree);
    expect([...back.blobs.keys()].sort()).toEqual([t.outputRef.sha256, t.pickleRef.sha256, t.manifest.sha256].sort());
    expect(back.keys).toEqual(new Map([[FIXTURE_KEY.keyId, FIXTURE_KEY.publicPem]]));
    expect(back.manifest).toMatchObject({ format: 'recur.audit-bundle/1', treeId: 'r', records: inTree.length, missingBlobs: [], keys: [FIXTURE_KEY.keyId] });
    const v = await verifyBundle(back, FIXTURE_KEY.keyring, given);
    expect(v).toMatchObject({ ok: true, faults: [], events: inTree.length, blobs: { needed: 3, present: 3, unreferenced: 0 }, keys: given });
  });

  it('an edited event fails verification naming it', async () => {
    const store = createLocalBlobStore(dir());
    const t = await tree(store);
    const bundle = await bundled(store, t);
    const end = bundle.records.find((r) => r.value!.includes('all done'))!;
    end.value!.write('all gone', end.value!.indexOf('all done'));
    const v = await verifyBundle(await roundTrip(bundle), FIXTURE_KEY.keyring, given);
    expect(v.ok).toBe(false);
    expect(v.faults[0]).toMatchObject({ eventId: t.endId, fault: 'hash-mismatch' });
  });

  it('a blob whose bytes were changed fails verification naming the blob and the event naming it', async () => {
    const store = createLocalBlobStore(dir());
    const t = await tree(store);
    const bundle = await bundled(store, t);
    (bundle.blobs as Map<string, Buffer>).set(t.outputRef.sha256, Buffer.from('y'.repeat(20_000)));
    const v = await verifyBundle(await roundTrip(bundle), FIXTURE_KEY.keyring, given);
    expect(v.faults).toEqual([expect.objectContaining({ eventId: t.executedId, fault: 'blob-corrupt', detail: expect.stringContaining(`outputsBlob → blob ${t.outputRef.sha256}: the bundle's copy hashes to`) })]);
  });

  it.each([['output', 'outputsBlob', 'executedId'], ['pickle', 'manifest → variable df', 'snapshotId']] as const)(
    'a %s blob the exporting home lacks is listed at export and reported missing, naming the event and field', async (skip, field, at) => {
      const store = createLocalBlobStore(dir());
      const t = await tree(store, { skip });
      const bundle = await bundled(store, t);
      const sha = skip === 'output' ? t.outputRef.sha256 : t.pickleRef.sha256;
      expect(bundle.manifest.missingBlobs).toEqual([{ sha256: sha, size: expect.any(Number), eventId: t[at], field }]);
      const v = await verifyBundle(await roundTrip(bundle), FIXTURE_KEY.keyring, given);
      expect(v.ok).toBe(false);
      expect(v.faults).toEqual([expect.objectContaining({ eventId: t[at], fault: 'blob-missing', detail: expect.stringContaining(`${field} → blob ${sha}`) })]);
      expect(v.blobs).toMatchObject({ needed: 3, present: 2 });
    });

  it('a file that is not a bundle is refused, naming it', () => {
    const file = join(dir(), 'not.tar.gz');
    writeFileSync(file, 'hello');
    expect(() => readBundle(file)).toThrow(`${file} is not a Recur audit bundle`);
  });
});

describe('recur audit verify --bundle and recur replay --bundle (no stack, an empty home)', () => {
  const cli = (args: string[]) => cliInProcess(args, { RECUR_HOME: join(dir(), 'empty-home') });

  it("says which keys it verified with: the bundle's own proves self-consistency only; an operator's other key finds every event unknown", async () => {
    const store = createLocalBlobStore(dir());
    const file = join(dir(), 'tree.tar.gz');
    await writeBundle(file, await bundled(store, await tree(store)));
    const own = await cli(['audit', 'verify', '--bundle', file]);
    expect(own.code).toBe(0);
    expect(own.out).toContain(`  verified with the bundle's own public key(s): this proves only that the bundle is self-consistent; pass --pubkey with a key you trust (${FIXTURE_KEY.keyId})`);
    const other = testLogKey();
    const pub = join(dir(), 'operator.pem');
    writeFileSync(pub, other.publicPem);
    const theirs = await cli(['audit', 'verify', '--bundle', file, '--pubkey', pub, '--json']);
    expect(theirs.code).toBe(3);
    const verdict = JSON.parse(theirs.out[0]);
    expect(verdict.keys).toEqual({ source: 'given', keyIds: [other.keyId] });
    expect(verdict.first).toMatchObject({ eventId: 'r/0', fault: 'unknown-key' });
    const replayed = await cli(['replay', '--bundle', file]);
    expect(replayed.code).toBe(0);
    expect(replayed.out[0]).toMatch(/^replay of r: 2 sessions, 9 events/);
    expect(replayed.out.join('\n')).toContain('outputsBlob: blob');
  });
});
