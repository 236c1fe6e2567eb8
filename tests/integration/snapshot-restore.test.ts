import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KernelAPI, ServerConnection } from '@jupyterlab/services';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createLocalBlobStore } from '../../activities/blob-store';
import { createKernelClient, type KernelClient } from '../../activities/kernel';
import { createSnapshotActivities, parseManifest } from '../../activities/snapshot';
import { loadConfig } from '../../config';
import { KernelLostError } from '../../errors';
import { jupyterConnection } from '../../config/home-paths';
import { repoRoot } from '../../services/home/repo-root';
import { createKernelHost } from '../../services/sandbox';

const DEFINE = `
import math
n = 42
big = 10 ** 30
config = {"name": "demo", "tags": ["a", "b"], "nested": {"k": (1, 2)}}
items = list(range(1000))
scale = 2
def area(r):
    return math.pi * r * r * scale
class Counter:
    def __init__(self, start):
        self.count = start
    def bump(self, by=1):
        self.count += by
        return self.count
counter = Counter(10)
counter.bump()
double = lambda v: v * 2
squares = (i * i for i in range(5))
`;

const VISIBLE_NAMES = "print(sorted(k for k in globals() if not k.startswith('_')))";

/** Every blob file under the store, as `<sha256>`. */
const blobFiles = (root: string): string[] =>
  readdirSync(join(root, 'sha256')).flatMap((dir) => readdirSync(join(root, 'sha256', dir))).sort();

describe('kernel snapshot and restore on a real Jupyter server', () => {
  let kernels: KernelClient;
  let blobsRoot: string;
  // Two tests expect a failing activity; the SDK would log each as a warning.
  const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  const run = <I, O>(fn: (input: I) => Promise<O>, input: I) => env.run(fn, input) as Promise<O>;
  const sessionId = `snap-${randomUUID()}`;
  const others = [`snap-${randomUUID()}`, `snap-${randomUUID()}`];

  beforeAll(() => {
    kernels = createKernelClient({ ...jupyterConnection(loadConfig()), host: createKernelHost(loadConfig()), pythonPath: join(repoRoot(), 'kernel') });
    blobsRoot = mkdtempSync(join(tmpdir(), 'recur-snap-blobs-'));
  });
  afterAll(async () => {
    for (const s of [sessionId, ...others]) await kernels.shutdown(s).catch(() => undefined);
    kernels.dispose();
    rmSync(blobsRoot, { recursive: true, force: true });
  });

  test('variables, functions, classes and instances survive a kernel shutdown; a generator is reported unsaved', async () => {
    const blobs = createLocalBlobStore(blobsRoot);
    const { snapshotKernel, restoreKernel } = createSnapshotActivities({ kernels, blobs, places: createKernelHost(loadConfig()) });
    const manifestOf = async (ref: { sha256: string }) => parseManifest(await blobs.get(ref.sha256));
    await kernels.start(sessionId);
    expect((await kernels.execute(sessionId, DEFINE)).status).toBe('ok');
    const before = await kernels.execute(sessionId, VISIBLE_NAMES);

    const first = await run(snapshotKernel, { sessionId, coversSeq: 5 });
    expect(first).toMatchObject({ coversSeq: 5, variables: 9, newBlobs: 9 });
    expect(first.unsaved).toEqual([{ name: 'squares', reason: "generator: TypeError: cannot pickle 'generator' object" }]);
    expect(first.oversize).toEqual([]);
    const after = await kernels.execute(sessionId, VISIBLE_NAMES);
    expect(after.stdout).toBe(before.stdout); // the snapshot left no name behind
    expect(after.executionCount).toBe(before.executionCount! + 1); // and took no execution count

    const manifest = await manifestOf(first.manifest);
    const picklers = Object.fromEntries(manifest.variables.map((v) => [v.name, v.pickler]));
    expect(picklers).toEqual({
      n: 'pickle', big: 'pickle', config: 'pickle', items: 'pickle', scale: 'pickle',
      area: 'cloudpickle', Counter: 'cloudpickle', counter: 'cloudpickle', double: 'cloudpickle',
    });
    expect(manifest.modules).toEqual([{ name: 'math', module: 'math' }]);

    const filesBefore = blobFiles(blobsRoot);
    const second = await run(snapshotKernel, { sessionId, coversSeq: 6 });
    expect(second).toMatchObject({ variables: 9, newBlobs: 0, newBytes: 0 });
    const added = blobFiles(blobsRoot).filter((f) => !filesBefore.includes(f));
    expect(added).toEqual([second.manifest.sha256]); // only the new manifest (its coversSeq differs)

    await kernels.shutdown(sessionId);
    expect((await kernels.start(sessionId)).fresh).toBe(true);
    const restored = await run(restoreKernel, { sessionId, manifest: first.manifest });
    expect(restored.failed).toEqual([]);
    expect([...restored.restored].sort()).toEqual(['Counter', 'area', 'big', 'config', 'counter', 'double', 'items', 'math', 'n', 'scale']);

    const afterRestore = await run(snapshotKernel, { sessionId, coversSeq: 6 });
    expect(afterRestore).toMatchObject({ variables: 9, newBlobs: 0, unsaved: [] });
    expect((await manifestOf(afterRestore.manifest)).variables).toEqual(manifest.variables);

    const check = await kernels.execute(sessionId, [
      'print(n, big, config, items[-1], len(items), round(area(1), 4))',
      'print(counter.count, counter.bump(5), isinstance(counter, Counter), Counter(1).bump(), double(21))',
      "print('squares' in globals())",
      'scale = 3',
      'print(round(area(1), 4))',
    ].join('\n'));
    expect(check.error).toBeNull();
    expect(check.stdout.split('\n')).toEqual([
      "42 1000000000000000000000000000000 {'name': 'demo', 'tags': ['a', 'b'], 'nested': {'k': (1, 2)}} 999 1000 6.2832",
      '11 16 True 2 42',
      'False',
      '9.4248',
      '',
    ]);
  });

  test('a session without a kernel, or whose kernel was reset, is never snapshotted as empty', async () => {
    const { snapshotKernel } = createSnapshotActivities({ kernels, blobs: createLocalBlobStore(blobsRoot), places: createKernelHost(loadConfig()) });
    const [gone] = others;
    await expect(run(snapshotKernel, { sessionId: gone, coversSeq: 1 })).rejects.toThrow(KernelLostError);
    await kernels.start(gone);
    await kernels.execute(gone, 'x = 1');
    await KernelAPI.restartKernel((await kernels.kernelIdOf(gone))!, ServerConnection.makeSettings(jupyterConnection(loadConfig())));
    const afterRestart = run(snapshotKernel, { sessionId: gone, coversSeq: 2 });
    await expect(afterRestart).rejects.toThrow(KernelLostError);
    await expect(afterRestart).rejects.toThrow(/namespace was reset/);
  });

  test('a variable blob changed in the store is left out of the restore; that variable fails and the others restore', async () => {
    const blobs = createLocalBlobStore(blobsRoot);
    const { snapshotKernel, restoreKernel } = createSnapshotActivities({ kernels, blobs, places: createKernelHost(loadConfig()) });
    const [, s] = others;
    await kernels.start(s);
    await kernels.execute(s, 'a = ["original"]\nb = "kept"');
    const snap = await run(snapshotKernel, { sessionId: s, coversSeq: 1 });
    const a = (await parseManifest(await blobs.get(snap.manifest.sha256))).variables.find((v) => v.name === 'a')!;
    writeFileSync(join(blobsRoot, 'sha256', a.sha256.slice(0, 2), a.sha256), Buffer.from('\x80\x05\x95\x0c\x00\x00\x00\x00\x00\x00\x00]\x94\x8c\x04evil\x94a.', 'latin1'));
    await kernels.shutdown(s);
    await kernels.start(s);
    const restored = await run(restoreKernel, { sessionId: s, manifest: snap.manifest });
    expect(restored.restored).toEqual(['b']);
    expect(restored.failed).toEqual([{ name: 'a', reason: expect.stringContaining('BlobError') }]);
    expect((await kernels.execute(s, "print('a' in globals(), b)")).stdout).toBe('False kept\n');
  });
});
