import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { KernelClient } from '../activities/kernel';
import { openBlobStore } from '../activities/open-blob-store';
import { createSnapshotActivities } from '../activities/snapshot';
import { createKernelHost } from '../services/sandbox';
import { benchKernels } from './bench-kernels';
import { newSessionId } from './bench-worker';
import { size, type Benchmark } from './benchmark';
import { compare } from './report';

/**
 * design.md's 22 MB namespace (numpy is not in the venv, so 10 MB of random bytes stand in for
 * its array), different in every round so no round finds its blobs already stored.
 */
const namespace = (round: number) => `
import random
big_list = list(range(${round}, ${round} + 2_000_000))
big_dict = {i: str(i + ${round}) for i in range(200_000)}
blob = random.Random(${round}).randbytes(10_000_000)
def shift(x):
    return x + ${round}
class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y
point = Point(${round}, 2)
`;

const CHECK = 'assert len(big_list) == 2_000_000 and len(big_dict) == 200_000 and len(blob) == 10_000_000 and point.y == 2';

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t0 = performance.now();
  const value = await fn();
  return [performance.now() - t0, value];
}

async function mustRun(kernels: KernelClient, session: string, code: string): Promise<void> {
  const r = await kernels.execute(session, code, { timeoutMs: 600_000 });
  if (r.status !== 'ok') throw new Error(`cell failed in ${session}: ${r.error?.ename}: ${r.error?.evalue}`);
}

/** Snapshot and restore of the same namespace through the snapshot activities and through dill's whole-module dump. */
export const snapshotBench: Benchmark = {
  name: 'snapshot',
  async run(ctx) {
    const { kernels, close } = await benchKernels(ctx.config);
    const acts = createSnapshotActivities({ kernels, blobs: openBlobStore(ctx.config), places: createKernelHost(ctx.config) });
    const env = new MockActivityEnvironment();
    // The activities read Context.current(): run them in a mock activity context, as a worker would.
    const inActivity = <A extends unknown[], R>(fn: (...a: A) => Promise<R>, ...args: A) => env.run(fn, ...args) as Promise<R>;
    const dir = mkdtempSync(join(tmpdir(), 'recur-bench-dill-'));
    const times = { snapshot: [] as number[], dump: [] as number[], restore: [] as number[], load: [] as number[], unchanged: [] as number[] };
    let bytes = 0;
    try {
      for (let round = 0; round < size(ctx, 3, 1); round++) {
        ctx.log(`snapshot: round ${round + 1}`);
        const [src, viaRecur, viaDill] = [newSessionId(), newSessionId(), newSessionId()];
        await kernels.start(src);
        await mustRun(kernels, src, namespace(round));
        const [snapMs, snap] = await timed(() => inActivity(acts.snapshotKernel, { sessionId: src, coversSeq: round }));
        times.snapshot.push(snapMs);
        bytes = snap.bytes;
        times.unchanged.push((await timed(() => inActivity(acts.snapshotKernel, { sessionId: src, coversSeq: round })))[0]);
        const file = join(dir, `round-${round}.pkl`);
        times.dump.push((await timed(() => mustRun(kernels, src, `import dill\ndill.dump_module(${JSON.stringify(file)})`)))[0]);
        await kernels.shutdown(src);

        await kernels.start(viaRecur);
        const [restoreMs, restored] = await timed(() => inActivity(acts.restoreKernel, { sessionId: viaRecur, manifest: snap.manifest }));
        if (restored.failed.length) throw new Error(`restore failed for ${restored.failed.map((f) => f.name).join(', ')}`);
        times.restore.push(restoreMs);
        await mustRun(kernels, viaRecur, CHECK);
        await kernels.shutdown(viaRecur);

        await kernels.start(viaDill);
        times.load.push((await timed(() => mustRun(kernels, viaDill, `import dill\ndill.load_module(${JSON.stringify(file)})`)))[0]);
        await mustRun(kernels, viaDill, CHECK);
        await kernels.shutdown(viaDill);
        rmSync(file, { force: true });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await close();
    }
    const limits = 'pickling 22 MB in the kernel (C pickler for plain data); dill’s pure-Python pickler for the baseline';
    return [
      compare({
        name: 'snapshot/snapshot', title: 'Kernel snapshot of a 22 MB namespace', unit: 'ms', better: 'lower',
        subject: { label: 'snapshotKernel activity (per-variable, content-addressed)', samples: times.snapshot },
        baseline: { label: 'dill.dump_module', samples: times.dump },
        limits, details: { snapshotBytes: bytes, unchangedResnapshotMs: times.unchanged },
      }),
      compare({
        name: 'snapshot/restore', title: 'Kernel restore of the same namespace into a new kernel', unit: 'ms', better: 'lower',
        subject: { label: 'restoreKernel activity', samples: times.restore },
        baseline: { label: 'dill.load_module', samples: times.load },
        limits: 'unpickling in the kernel and hashing each blob before it loads; the kernel was started before the clock',
      }),
    ];
  },
};
