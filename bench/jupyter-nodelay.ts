/**
 * Cell round trip through Jupyter with and without TCP_NODELAY on the kernel websocket
 * (kernel/recur_jupyter), plus the kernel → host bridge call latency.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/jupyter-nodelay.js [--python P] [--cells N] [--out F]
 *
 * P defaults to $RECUR_BENCH_PYTHON, then the Recur venv's python; it needs jupyter-server
 * and ipykernel. Starts two throwaway servers on free ports and writes medians to F
 * (default reports/jupyter-nodelay.json). `npm run bench` runs the same measurement as part of
 * its cell-round-trip benchmark.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createKernelClient } from '../activities/kernel';
import { loadConfig } from '../config';
import { stackPaths } from '../config/home-paths';
import { repoRoot } from '../services/home/repo-root';
import { startHostBridge } from '../services/host-bridge';
import { createKernelHost } from '../services/sandbox';
import { startThrowawayJupyter } from './throwaway-jupyter';

const REPO = repoRoot();

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];
const round = (x: number) => Math.round(x * 1000) / 1000;

export interface NodelaySamples {
  /** Wall time of each `1+1` cell, ms. */
  cellMs: number[];
  /** Kernel → host bridge call latency measured inside the kernel, ms. */
  bridgeMs: { median: number; p90: number };
}

/** `cells` timed `1+1` round trips on a throwaway Jupyter server with TCP_NODELAY on or off. */
export async function measureNodelay(python: string, nodelay: boolean, cells: number): Promise<NodelaySamples> {
  const server = await startThrowawayJupyter(python, { nodelay });
  const bridge = await startHostBridge();
  bridge.handle('echo', async (_s, args) => args);
  const client = createKernelClient({ ...server, host: createKernelHost(loadConfig(), bridge) });
  const session = `bench-${nodelay ? 'nodelay' : 'nagle'}`;
  try {
    await client.start(session);
    for (let i = 0; i < 10; i++) await client.execute(session, '1+1');
    const cellMs: number[] = [];
    for (let i = 0; i < cells; i++) {
      const t0 = performance.now();
      const r = await client.execute(session, '1+1');
      cellMs.push(performance.now() - t0);
      if (r.result !== '2') throw new Error(`unexpected cell result ${JSON.stringify(r)}`);
    }
    const rpc = await client.execute(session, [
      'import json, time, recur_kernel',
      'ts = []',
      'for i in range(300):',
      '    t0 = time.perf_counter(); recur_kernel.call("echo", {"i": i}); ts.append((time.perf_counter() - t0) * 1000)',
      'ts.sort(); print(json.dumps({"median": ts[len(ts) // 2], "p90": ts[int(len(ts) * 0.9)]}))',
    ].join('\n'));
    return { cellMs, bridgeMs: JSON.parse(rpc.stdout) as { median: number; p90: number } };
  } finally {
    await client.shutdown(session).catch(() => undefined);
    client.dispose();
    await bridge.close();
    await server.stop();
  }
}

async function measure(python: string, nodelay: boolean, cells: number) {
  const { cellMs, bridgeMs } = await measureNodelay(python, nodelay, cells);
  return { nodelay, cells, cellMedianMs: round(median(cellMs)), cellP90Ms: round(p90(cellMs)), bridgeCallMedianMs: round(bridgeMs.median), bridgeCallP90Ms: round(bridgeMs.p90) };
}

async function main() {
  const python = arg('python') ?? process.env.RECUR_BENCH_PYTHON ?? stackPaths(loadConfig()).python;
  const cells = Number(arg('cells') ?? 200);
  const out = resolve(arg('out') ?? join(REPO, 'reports', 'jupyter-nodelay.json'));
  const withNodelay = await measure(python, true, cells);
  const withoutNodelay = await measure(python, false, cells);
  const report = { python, measuredAt: new Date().toISOString(), withNodelay, withoutNodelay };
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
  console.log(JSON.stringify(report, null, 2));
}

// Also a module: the benchmark suite (bench/cell-round-trip.ts) imports measureNodelay.
if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
