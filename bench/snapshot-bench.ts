/**
 * Kernel snapshot and restore: Recur's per-variable snapshot (pickle 5, then cloudpickle, then
 * dill, each variable a blob) against `dill.dump_module` / `load_module`, on the same
 * namespaces of about 1, 10 and 100 MB (bytes, a list of ints, a dict, a function, an
 * instance), in one run on a throwaway Jupyter server.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/snapshot-bench.js [--python P] [--sizes 1,10,100] [--out F]
 *
 * P defaults to $RECUR_BENCH_PYTHON, then the Recur venv's python (jupyter-server, ipykernel,
 * cloudpickle, dill). Times are wall times seen by the host, in ms; `kernelMs` is dill's own
 * time inside the kernel. Writes F (default reports/snapshot-bench.json).
 */
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createLocalBlobStore } from '../activities/blob-store';
import { createKernelClient, type ExecuteResult, type KernelClient } from '../activities/kernel';
import { createSnapshotActivities } from '../activities/snapshot';
import { loadConfig } from '../config';
import { stackPaths } from '../config/home-paths';
import { repoRoot } from '../services/home/repo-root';
import { createKernelHost } from '../services/sandbox';
import { startThrowawayJupyter, type ThrowawayJupyter } from './throwaway-jupyter';

const CELL_TIMEOUT_MS = 600_000;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** About `mb` MB of pickles: 40% random bytes, 30% a list of ints (5 bytes each), 30% a str→int dict. */
const namespaceCode = (mb: number): string => `
import os
payload = os.urandom(int(${mb} * 2**20 * 0.4))
numbers = list(range(2**16, 2**16 + int(${mb} * 2**20 * 0.3 / 5)))
table = {f"k{i}": i for i in range(int(${mb} * 2**20 * 0.3 / 15))}
def score(x):
    return x * 2
class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y
    def norm2(self):
        return self.x ** 2 + self.y ** 2
origin = Point(3, 4)
`;

/** The same line from every kernel holding the namespace, or the restore lost something. */
const FINGERPRINT = "print(__import__('hashlib').sha256(payload).hexdigest()[:16], sum(numbers), len(table), table['k7'], score(21), origin.norm2())";

/** The start time lives in a lambda's frame: load_module replaces the namespace, globals included. */
const timedDill = (statement: string) =>
  `import dill as _dill, time as _time\nprint((lambda t0: (${statement}, _time.perf_counter() - t0)[1])(_time.perf_counter()))`;

const ms = (x: number) => Math.round(x * 10) / 10;

async function ok(pending: Promise<ExecuteResult>): Promise<ExecuteResult> {
  const r = await pending;
  if (r.status !== 'ok') throw new Error(`bench cell failed: ${r.error?.ename}: ${r.error?.evalue}\n${r.error?.traceback ?? r.stdout}`);
  return r;
}

async function measure(mb: number, kernels: KernelClient, server: ThrowawayJupyter) {
  const blobsRoot = join(server.dir, `blobs-${mb}`);
  const blobs = createLocalBlobStore(blobsRoot);
  const acts = createSnapshotActivities({ kernels, blobs, places: createKernelHost(loadConfig()), limits: { maxVariableBytes: null, maxTotalBytes: null }, timeoutMs: CELL_TIMEOUT_MS });
  const env = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('ERROR') });
  const run = <I, O>(fn: (input: I) => Promise<O>, input: I) => env.run(fn, input) as Promise<O>;
  const [source, ours, viaDill] = ['src', 'recur', 'dill'].map((k) => `bench-${mb}mb-${k}`);
  const exec = (session: string, code: string) => ok(kernels.execute(session, code, { timeoutMs: CELL_TIMEOUT_MS }));
  try {
    for (const s of [source, ours, viaDill]) await kernels.start(s);
    await exec(source, namespaceCode(mb));
    const expected = (await exec(source, FINGERPRINT)).stdout;

    const cold = await run(acts.snapshotKernel, { sessionId: source, coversSeq: 1 });
    const unchanged = await run(acts.snapshotKernel, { sessionId: source, coversSeq: 2 });
    const restored = await run(acts.restoreKernel, { sessionId: ours, manifest: cold.manifest });
    const oursMatch = (await exec(ours, FINGERPRINT)).stdout === expected;

    const file = join(server.dir, `dill-${mb}.pkl`);
    const dump = await exec(source, timedDill(`_dill.dump_module(${JSON.stringify(file)})`));
    const load = await exec(viaDill, timedDill(`_dill.load_module(${JSON.stringify(file)})`));
    const dillMatch = (await exec(viaDill, FINGERPRINT)).stdout === expected;

    return {
      targetMB: mb,
      snapshotBytes: cold.bytes,
      variables: cold.variables,
      recur: {
        snapshotMs: cold.durationMs,
        unchangedSnapshotMs: unchanged.durationMs,
        unchangedNewBlobs: unchanged.newBlobs,
        restoreMs: restored.durationMs,
        restoredAll: restored.failed.length === 0 && oursMatch,
      },
      dillDumpModule: {
        fileBytes: statSync(file).size,
        dumpMs: ms(dump.durationMs),
        dumpKernelMs: ms(Number(dump.stdout.trim()) * 1000),
        loadMs: ms(load.durationMs),
        loadKernelMs: ms(Number(load.stdout.trim()) * 1000),
        restoredAll: dillMatch,
      },
    };
  } finally {
    for (const s of [source, ours, viaDill]) await kernels.shutdown(s).catch(() => undefined);
  }
}

async function main() {
  const python = arg('python') ?? process.env.RECUR_BENCH_PYTHON ?? stackPaths(loadConfig()).python;
  const sizes = (arg('sizes') ?? '1,10,100').split(',').map(Number);
  const out = resolve(arg('out') ?? join(repoRoot(), 'reports', 'snapshot-bench.json'));
  const server = await startThrowawayJupyter(python);
  const kernels = createKernelClient({ ...server, host: createKernelHost(loadConfig()) });
  try {
    const results = [];
    for (const mb of sizes) {
      results.push(await measure(mb, kernels, server));
      console.error(JSON.stringify(results[results.length - 1]));
    }
    const report = { python, measuredAt: new Date().toISOString(), cpus: cpus().length, memGiB: Math.round(totalmem() / 2 ** 30), results };
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
    console.log(JSON.stringify(report, null, 2));
  } finally {
    kernels.dispose();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
