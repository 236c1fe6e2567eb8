import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stackPaths } from '../config/home-paths';
import { repoRoot } from '../services/home/repo-root';
import { benchKernels } from './bench-kernels';
import { newSessionId } from './bench-worker';
import { size, type BenchContext, type Benchmark } from './benchmark';
import { barChart } from './chart';
import { measureNodelay } from './jupyter-nodelay';
import { compare } from './report';
import { summarize } from './stats';

const WARMUP = 10;

/** `1+1` through the stack's Jupyter server (websocket, NODELAY on) with Recur's kernel client. */
async function throughJupyter(ctx: BenchContext, cells: number): Promise<number[]> {
  const { kernels, close } = await benchKernels(ctx.config);
  const session = newSessionId();
  try {
    await kernels.start(session);
    for (let i = 0; i < WARMUP; i++) await kernels.execute(session, '1+1');
    const ms: number[] = [];
    for (let i = 0; i < cells; i++) {
      const t0 = performance.now();
      const r = await kernels.execute(session, '1+1');
      ms.push(performance.now() - t0);
      if (r.result !== '2') throw new Error(`1+1 gave ${JSON.stringify(r.result)}`);
    }
    return ms;
  } finally {
    await kernels.shutdown(session).catch(() => undefined);
    await close();
  }
}

/** The same cells from Python straight over ZeroMQ (bench/direct-zmq.py), on a kernel of the same venv. */
async function directZmq(ctx: BenchContext, cells: number): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), 'recur-bench-zmq-'));
  try {
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, JUPYTER_RUNTIME_DIR: dir, IPYTHONDIR: join(dir, 'ipython'), JUPYTER_PLATFORM_DIRS: '1' };
    const { stdout } = await promisify(execFile)(stackPaths(ctx.config).python, [join(repoRoot(), 'bench', 'direct-zmq.py'), String(cells), String(WARMUP)], {
      env, cwd: dir, timeout: 300_000, maxBuffer: 16 * 2 ** 20,
    });
    return (JSON.parse(stdout) as { cellMs: number[] }).cellMs;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const cellRoundTrip: Benchmark = {
  name: 'cell-round-trip',
  async run(ctx) {
    const cells = size(ctx, 300, 40);
    ctx.log(`cell-round-trip: ${cells} cells through Jupyter, direct ZeroMQ, NODELAY on and off`);
    const jupyter = await throughJupyter(ctx, cells);
    const direct = await directZmq(ctx, cells);
    const python = stackPaths(ctx.config).python;
    const on = await measureNodelay(python, true, cells);
    const off = await measureNodelay(python, false, cells);
    const bars = [['STACK', jupyter], ['ZMQ', direct], ['NODELAY ON', on.cellMs], ['NODELAY OFF', off.cellMs]] as const;
    ctx.plot('cell-round-trip.png', barChart({
      title: 'CELL ROUND TRIP (1+1)', yLabel: 'MS', legend: ['MEDIAN', 'P90'],
      groups: bars.map(([label, ms]) => ({ label, values: [summarize(ms).median, summarize(ms).p90] })),
    }));
    return [
      compare({
        name: 'cell-round-trip/jupyter-vs-zmq', title: 'Cell round trip `1+1`: Jupyter server vs direct ZeroMQ', unit: 'ms', better: 'lower',
        subject: { label: "Recur's kernel client via the stack's Jupyter server", samples: jupyter },
        baseline: { label: 'jupyter_client over ZeroMQ', samples: direct },
        limits: 'two extra hops (websocket, server ZeroMQ relay) and the server’s Python event loop on 2 shared cores',
      }),
      compare({
        name: 'cell-round-trip/nodelay', title: 'Cell round trip `1+1`: TCP_NODELAY on vs off', unit: 'ms', better: 'lower',
        subject: { label: 'NODELAY on (recur_jupyter)', samples: on.cellMs },
        baseline: { label: 'stock server (Nagle on)', samples: off.cellMs },
        limits: 'with Nagle on, the delayed-ACK stall (~40 ms) on the websocket; with it off, the kernel and server event loops',
        details: { bridgeCallMs: { nodelayOn: on.bridgeMs, nodelayOff: off.bridgeMs } },
      }),
    ];
  },
};
