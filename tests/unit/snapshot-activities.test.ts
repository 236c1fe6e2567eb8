import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
  const activities = () => createSnapshotActivities({ kernels, blobs, blobsRoot: root, limits: LIMITS });

  /** What the kernel side reports after storing `values` as pickles (here: their UTF-8 text). */
  async function storedReport(values: Record<string, string>) {
    const variables = [];
    for (const [name, text] of Object.entries(values)) {
      const ref = await blobs.put(Buffer.from(text));
      variables.push({ name, sha256: ref.sha256, size: ref.size, pickler: 'pickle' });
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

  test('snapshotKernel asks the kernel to write into the blob root under the limits and stores a manifest', async () => {
    const report = await storedReport({ x: '41', data: '{"a": 1}' });
    kernelReport = async () => report;
    const result = await run(activities().snapshotKernel, { sessionId: 's1', coversSeq: 12 });

    const call = argsOf(kernels.runSilent.mock.calls[0][2]!.expression!);
    expect(call).toEqual({ fn: 'snapshot_for_host', args: { session_id: 's1', blobs_root: root, max_variable_bytes: 1000, max_total_bytes: 5000 } });
    expect(kernels.start).not.toHaveBeenCalled();
    expect(result).toMatchObject({
      coversSeq: 12, variables: 2, bytes: report.bytes, unsaved: report.unsaved, oversize: report.oversize, newBlobs: 2, newBytes: 7,
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

  test('a kernel that wrote its blobs somewhere else fails the snapshot instead of logging dangling refs', async () => {
    const report = await storedReport({ x: '41' });
    report.variables.push({ name: 'y', sha256: sha256Hex(Buffer.from('elsewhere')), size: 9, pickler: 'pickle' });
    kernelReport = async () => report;
    await expect(run(activities().snapshotKernel, { sessionId: 's1', coversSeq: 1 })).rejects.toThrow(SnapshotError);
    await expect(run(activities().snapshotKernel, { sessionId: 's1', coversSeq: 1 })).rejects.toThrow(/y as blob .* not in this worker's blob store/);
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

  test('restoreKernel starts the kernel and hands it the manifest variables and modules', async () => {
    const report = await storedReport({ x: '41' });
    kernelReport = async () => report;
    const { manifest } = await run(activities().snapshotKernel, { sessionId: 's1', coversSeq: 4 });
    kernelReport = async () => ({ restored: ['np', 'x'], failed: [{ name: 'y', reason: 'pickle: BlobError: missing' }], seconds: 0.1 });

    const result = await run(activities().restoreKernel, { sessionId: 's2', manifest });
    expect(kernels.start).toHaveBeenCalledWith('s2');
    const call = argsOf(kernels.runSilent.mock.calls[1][2]!.expression!);
    expect(call).toEqual({ fn: 'restore_for_host', args: { blobs_root: root, manifest: { variables: report.variables, modules: report.modules } } });
    expect(result).toMatchObject({ restored: ['np', 'x'], failed: [{ name: 'y', reason: 'pickle: BlobError: missing' }] });
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
