import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { BlobStoreError, createLocalBlobStore, sha256Hex, type BlobStore } from '../../activities/blob-store';
import { MANIFEST_FORMAT, SnapshotError, createSnapshotActivities, parseManifest } from '../../activities/snapshot';
import { KernelLostError } from '../../errors';

/** The JSON arguments inside `module.fn("<json>")`, as the kernel would read them. */
function argsOf(expression: string): { fn: string; args: Record<string, unknown> } {
  const match = /\._snapshot\.(\w+)\((".*")\)$/s.exec(expression);
  if (!match) throw new Error(`not a snapshot call: ${expression}`);
  return { fn: match[1], args: JSON.parse(JSON.parse(match[2])) };
}

const LIMITS = { maxVariableBytes: 1000, maxTotalBytes: 5000 };

describe('snapshot activities (fake kernel, real blob store)', () => {
  let root: string;
  let blobs: BlobStore;
  let kernelReport: (args: Record<string, unknown>) => Promise<unknown>;
  const kernels = {
    start: jest.fn(async (sessionId: string) => ({ sessionId, kernelId: 'k1', fresh: true, restarted: false })),
    runSilent: jest.fn(async (_sessionId: string, _code: string, opts?: { expression?: string }) => kernelReport(argsOf(opts!.expression!).args)),
    interrupt: jest.fn(async () => undefined),
  };
  // Failing activities are what several tests expect; the SDK would log each as a warning.
  const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  const run = <I, O>(fn: (input: I) => Promise<O>, input: I) => env.run(fn, input) as Promise<O>;
  const places = { place: (s: string) => ({ name: 'k', spool: join(root, 'spool', s), restore: join(root, 'restore', s), skills: join(root, 'skills', s), workspace: join(root, 'workspaces', s) }) };
  const activities = () => createSnapshotActivities({ kernels, blobs, places, limits: LIMITS });
  const spoolFile = (session: string, sha: string) => join(places.place(session).spool, 'sha256', sha.slice(0, 2), sha);
  const writeSpool = (session: string, sha: string, data: string | Buffer) => {
    mkdirSync(join(spoolFile(session, sha), '..'), { recursive: true });
    writeFileSync(spoolFile(session, sha), data);
  };

  /** What the kernel side reports after writing `values` as pickles (here: their UTF-8 text) to session s1's spool. */
  async function storedReport(values: Record<string, string>) {
    const variables = [];
    for (const [name, text] of Object.entries(values)) {
      const sha256 = sha256Hex(Buffer.from(text));
      writeSpool('s1', sha256, text);
      variables.push({ name, sha256, size: Buffer.byteLength(text), pickler: 'pickle' });
    }
    return {
      variables, modules: [{ name: 'np', module: 'numpy' }],
      unsaved: [{ name: 'g', reason: "generator: TypeError: cannot pickle 'generator' object" }],
      oversize: [{ name: 'big', size: 1001, limit: 'variable' }],
      bytes: variables.reduce((n, v) => n + v.size, 0), written: variables.length, writtenBytes: 7,
      python: '3.11.7', picklers: { pickle: 5 }, seconds: 0.01,
    };
  }

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'recur-snap-'));
    blobs = createLocalBlobStore(root);
    jest.clearAllMocks();
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  test("snapshotKernel asks the kernel to write into its spool under the limits, takes the spool into the store, and stores a manifest", async () => {
    const report = await storedReport({ x: '41', data: '{"a": 1}' });
    kernelReport = async () => report;
    const result = await run(activities().snapshotKernel, { sessionId: 's1', coversSeq: 12 });

    const call = argsOf(kernels.runSilent.mock.calls[0][2]!.expression!);
    expect(call).toEqual({ fn: 'snapshot_for_host', args: { session_id: 's1', blobs_root: places.place('s1').spool, max_variable_bytes: 1000, max_total_bytes: 5000, stored: [] } });
    expect(kernels.start).not.toHaveBeenCalled();
    for (const v of report.variables) expect((await blobs.get(v.sha256)).toString()).toBe(v.name === 'x' ? '41' : '{"a": 1}');
    expect(existsSync(join(places.place('s1').spool, 'sha256'))).toBe(false);
    expect(result).toMatchObject({
      coversSeq: 12, variables: 2, bytes: report.bytes, unsaved: report.unsaved, oversize: report.oversize, newBlobs: 2, newBytes: 10,
    });
    const manifest = parseManifest(await blobs.get(result.manifest.sha256));
    expect(manifest).toEqual({
      format: MANIFEST_FORMAT, coversSeq: 12, python: '3.11.7', picklers: { pickle: 5 }, limits: LIMITS,
      variables: report.variables, modules: report.modules, unsaved: report.unsaved, oversize: report.oversize, bytes: report.bytes,
    });
  });

  test('the same namespace and coversSeq give the same manifest blob', async () => {
    const report = await storedReport({ x: '41' });
    kernelReport = async () => structuredClone(report);
    const a = await run(activities().snapshotKernel, { sessionId: 's1', coversSeq: 3 });
    const b = await run(activities().snapshotKernel, { sessionId: 's1', coversSeq: 3 });
    expect(b.manifest).toEqual(a.manifest);
  });

  test("the next snapshot names the last one's blobs as stored, and the store is asked only about blobs neither taken nor named", async () => {
    const acts = activities();
    kernelReport = async () => storedReport({ x: '41', y: '[1]' });
    const first = await run(acts.snapshotKernel, { sessionId: 's1', coversSeq: 3 });
    // What the kernel does with `stored`: writes only y, which changed; x it leaves out of the spool.
    const x = sha256Hex(Buffer.from('41'));
    const y = sha256Hex(Buffer.from('[1, 2]'));
    const elsewhere = sha256Hex(Buffer.from('z'));
    await blobs.put(Buffer.from('z'));
    kernelReport = async (args) => {
      expect(args.stored).toEqual(expect.arrayContaining([x, sha256Hex(Buffer.from('[1]'))]));
      writeSpool('s1', y, '[1, 2]');
      return { ...(await storedReport({})), variables: [
        { name: 'x', sha256: x, size: 2, pickler: 'pickle' }, { name: 'y', sha256: y, size: 6, pickler: 'pickle' }, { name: 'z', sha256: elsewhere, size: 1, pickler: 'pickle' },
      ] };
    };
    const has = jest.spyOn(blobs, 'has');
    const second = await run(acts.snapshotKernel, { sessionId: 's1', coversSeq: 6 });
    expect(has.mock.calls.map(([sha]) => sha).filter((sha) => sha !== y)).toEqual([elsewhere]);
    expect(second).toMatchObject({ variables: 3, newBlobs: 1, newBytes: 6 });
    expect(parseManifest(await blobs.get(second.manifest.sha256)).variables.map((v) => v.sha256)).toEqual([x, y, elsewhere]);
    expect(first.manifest).not.toEqual(second.manifest);
    // Another session's snapshot names nothing of s1's.
    kernelReport = async () => storedReport({});
    await run(acts.snapshotKernel, { sessionId: 's2', coversSeq: 1 });
    expect(argsOf(kernels.runSilent.mock.calls.at(-1)![2]!.expression!).args.stored).toEqual([]);
  });

  test('past the blobs it may remember, a worker forgets the sessions snapshotted longest ago first', async () => {
    const acts = createSnapshotActivities({ kernels, blobs, places, limits: LIMITS, rememberBlobs: 4 });
    const storedArg = () => argsOf(kernels.runSilent.mock.calls.at(-1)![2]!.expression!).args.stored;
    const snap = async (sessionId: string, values: Record<string, string>) => {
      const variables = Object.entries(values).map(([name, text]) => {
        const sha256 = sha256Hex(Buffer.from(text));
        writeSpool(sessionId, sha256, text);
        return { name, sha256, size: text.length, pickler: 'pickle' };
      });
      kernelReport = async () => ({ ...(await storedReport({})), variables });
      await run(acts.snapshotKernel, { sessionId, coversSeq: 1 });
    };
    await snap('a', { x: '1', y: '2' });
    await snap('b', { z: '3' });
    await snap('a', { x: '1', y: '2' });
    expect(storedArg()).toHaveLength(2);
    // c's two make five: b, snapshotted longest ago, goes; a's two stay.
    await snap('c', { u: '4', v: '5' });
    await snap('a', { x: '1', y: '2' });
    expect(storedArg()).toHaveLength(2);
    await snap('b', { z: '3' });
    expect(storedArg()).toEqual([]);
  });

  test('a kernel that wrote its blobs somewhere else fails the snapshot instead of logging dangling refs', async () => {
    const report = await storedReport({ x: '41' });
    report.variables.push({ name: 'y', sha256: sha256Hex(Buffer.from('elsewhere')), size: 9, pickler: 'pickle' });
    kernelReport = async () => report;
    await expect(run(activities().snapshotKernel, { sessionId: 's1', coversSeq: 1 })).rejects.toThrow(SnapshotError);
    await expect(run(activities().snapshotKernel, { sessionId: 's1', coversSeq: 1 })).rejects.toThrow(/y as blob .* neither in its spool nor in this worker's blob store/);
  });

  test('what the spool holds is not trusted: bytes that do not hash to their name, and links, are dropped unread', async () => {
    const secret = join(root, 'secret');
    writeFileSync(secret, 'worker-only');
    const good = await storedReport({ x: '41' });
    const forged = sha256Hex(Buffer.from('what the kernel claims'));
    writeSpool('s1', forged, 'something else');
    const linked = sha256Hex(Buffer.from('worker-only'));
    mkdirSync(join(spoolFile('s1', linked), '..'), { recursive: true });
    symlinkSync(secret, spoolFile('s1', linked));
    kernelReport = async () => ({ ...good, variables: [...good.variables, { name: 'f', sha256: forged, size: 14, pickler: 'pickle' }] });
    await expect(run(activities().snapshotKernel, { sessionId: 's1', coversSeq: 1 })).rejects.toThrow(/f as blob/);
    expect(await blobs.has(forged)).toBe(false);
    expect(await blobs.has(linked)).toBe(false);
    expect(existsSync(secret)).toBe(true);
    expect(existsSync(join(places.place('s1').spool, 'sha256'))).toBe(false);
  });

  test('a kernel not bound to the session (restarted behind the client) is a lost kernel, and nothing is stored', async () => {
    kernelReport = async () => ({ unbound: null });
    await expect(run(activities().snapshotKernel, { sessionId: 's1', coversSeq: 1 })).rejects.toThrow(KernelLostError);
    await expect(run(activities().snapshotKernel, { sessionId: 's1', coversSeq: 1 })).rejects.toThrow(/bound to no session/);
    expect(existsSync(join(root, 'sha256'))).toBe(false);
  });

  test('a malformed kernel report is refused', async () => {
    kernelReport = async () => ({ variables: [{ name: 'x', sha256: 'nothex', size: 1, pickler: 'pickle' }] });
    await expect(run(activities().snapshotKernel, { sessionId: 's1', coversSeq: 1 })).rejects.toThrow(SnapshotError);
  });

  test('restoreKernel starts the kernel, lays out its blobs readable to another uid, hands it the manifest, and clears them after', async () => {
    const report = await storedReport({ x: '41' });
    kernelReport = async () => report;
    const { manifest } = await run(activities().snapshotKernel, { sessionId: 's1', coversSeq: 4 });
    const laidOut: Array<{ files: string[]; mode: number }> = [];
    kernelReport = async () => {
      const dir = join(places.place('s2').restore, 'sha256', report.variables[0].sha256.slice(0, 2));
      laidOut.push({ files: readdirSync(dir), mode: statSync(join(dir, report.variables[0].sha256)).mode & 0o777 });
      return { restored: ['np', 'x'], failed: [{ name: 'y', reason: 'pickle: BlobError: missing' }], seconds: 0.1 };
    };

    const result = await run(activities().restoreKernel, { sessionId: 's2', manifest });
    expect(kernels.start).toHaveBeenCalledWith('s2');
    const call = argsOf(kernels.runSilent.mock.calls[1][2]!.expression!);
    const restoreDir = places.place('s2').restore;
    expect(call).toEqual({ fn: 'restore_for_host', args: { blobs_root: restoreDir, manifest: { variables: report.variables, modules: report.modules } } });
    expect(result).toMatchObject({ restored: ['np', 'x'], failed: [{ name: 'y', reason: 'pickle: BlobError: missing' }] });
    expect(laidOut).toEqual([{ files: [report.variables[0].sha256], mode: 0o644 }]);
    expect(existsSync(join(restoreDir, 'sha256'))).toBe(false);
  });

  test('a manifest whose blob no longer matches its hash is refused before any kernel is touched', async () => {
    const manifest = await blobs.put(Buffer.from(JSON.stringify({ format: MANIFEST_FORMAT })));
    writeFileSync(join(root, 'sha256', manifest.sha256.slice(0, 2), manifest.sha256), '{"tampered": true}');
    await expect(run(activities().restoreKernel, { sessionId: 's2', manifest })).rejects.toThrow(BlobStoreError);
    expect(kernels.start).not.toHaveBeenCalled();
    expect(kernels.runSilent).not.toHaveBeenCalled();
  });

  test('a manifest of another format is refused', async () => {
    const manifest = await blobs.put(Buffer.from(JSON.stringify({ format: 'recur.kernel-snapshot/99' })));
    await expect(run(activities().restoreKernel, { sessionId: 's2', manifest })).rejects.toThrow(/format "recur.kernel-snapshot\/99"/);
    expect(kernels.start).not.toHaveBeenCalled();
  });
});
