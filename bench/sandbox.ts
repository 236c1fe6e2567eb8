import { setTimeout as sleep } from 'node:timers/promises';
import { createKernelClient } from '../activities/kernel';
import { stackPaths } from '../config/home-paths';
import { startHostBridge } from '../services/host-bridge';
import { createKernelHost, sandboxRoot } from '../services/sandbox';
import { newSessionId } from './bench-worker';
import { size, type BenchContext, type Benchmark } from './benchmark';
import { memoryOf, processTree, type ProcMemory } from './proc-memory';
import { compare } from './report';
import { startThrowawayJupyter } from './throwaway-jupyter';

interface Side {
  startMs: number[];
  cellMs: number[];
  kernelRssMiB: number[];
  kernelPssMiB: number[];
}

/**
 * The same kernels through the same kernel manager and policies, once in their bubblewrap
 * sandbox and once bare: what the sandbox costs to start a kernel, per cell, and in memory.
 */
async function measure(ctx: BenchContext, on: boolean, kernels: number, cells: number): Promise<Side> {
  const server = await startThrowawayJupyter(stackPaths(ctx.config).python, { sandbox: { root: sandboxRoot(ctx.config), on } });
  const bridge = await startHostBridge();
  const client = createKernelClient({ ...server, host: createKernelHost(ctx.config, bridge) });
  const sessions = Array.from({ length: kernels }, newSessionId);
  const side: Side = { startMs: [], cellMs: [], kernelRssMiB: [], kernelPssMiB: [] };
  try {
    for (const s of sessions) {
      const t0 = performance.now();
      await client.start(s);
      await client.execute(s, '1+1');
      side.startMs.push(performance.now() - t0);
    }
    const [first] = sessions;
    for (let i = 0; i < 10; i++) await client.execute(first, '1+1');
    for (let i = 0; i < cells; i++) {
      const t0 = performance.now();
      const r = await client.execute(first, '1+1');
      side.cellMs.push(performance.now() - t0);
      if (r.result !== '2') throw new Error(`1+1 gave ${JSON.stringify(r.result)}`);
    }
    await sleep(500);
    // Every process under the server is a kernel's (bwrap and its init count against the sandbox).
    const procs = processTree(server.pid).filter((p) => p !== server.pid).map(memoryOf).filter((m): m is ProcMemory => m !== null);
    side.kernelRssMiB.push(procs.reduce((n, m) => n + m.rssMiB, 0) / kernels);
    side.kernelPssMiB.push(procs.reduce((n, m) => n + m.pssMiB, 0) / kernels);
    return side;
  } finally {
    for (const s of sessions) await client.shutdown(s).catch(() => undefined);
    client.dispose();
    await bridge.close();
    await server.stop();
  }
}

export const sandboxBench: Benchmark = {
  name: 'sandbox',
  async run(ctx) {
    const kernels = size(ctx, 6, 2);
    const cells = size(ctx, 200, 30);
    ctx.log(`sandbox: ${kernels} kernels, ${cells} cells, sandboxed then bare`);
    const sandboxed = await measure(ctx, true, kernels, cells);
    const bare = await measure(ctx, false, kernels, cells);
    const sides = (pick: (s: Side) => number[]) => ({
      subject: { label: 'kernel in its bubblewrap sandbox', samples: pick(sandboxed) },
      baseline: { label: 'the same kernel started bare', samples: pick(bare) },
    });
    return [
      compare({
        name: 'sandbox/kernel-start', title: 'Kernel start to first cell answered: sandboxed vs bare', unit: 'ms', better: 'lower',
        ...sides((s) => s.startMs), limits: 'bwrap sets up namespaces and mounts, then ipykernel imports as usual; the session bootstrap is included',
        details: { kernels },
      }),
      compare({
        name: 'sandbox/cell-round-trip', title: '`1+1` round trip: sandboxed vs bare kernel', unit: 'ms', better: 'lower',
        ...sides((s) => s.cellMs), limits: 'ZeroMQ over ipc sockets (sandboxed) against tcp on loopback (bare); target ≤ 1.1×',
        details: { cells },
      }),
      compare({
        name: 'sandbox/kernel-memory', title: 'Memory per idle kernel: sandboxed vs bare', unit: 'MiB RSS', better: 'lower',
        ...sides((s) => s.kernelRssMiB), limits: 'bwrap and its PID-1 reaper stay resident beside each kernel',
        details: { kernels, pssMiBSandboxed: sandboxed.kernelPssMiB[0], pssMiBBare: bare.kernelPssMiB[0] },
      }),
    ];
  },
};
