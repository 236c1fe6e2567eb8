import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stackPaths } from '../config/home-paths';
import { readPid } from '../services/home/process';
import { benchKernels } from './bench-kernels';
import { newSessionId } from './bench-worker';
import { size, type Benchmark } from './benchmark';
import { barChart } from './chart';
import { processTree, memoryOf, treeMemory, type ProcMemory } from './proc-memory';
import { compare } from './report';
import { retainedMemory } from './retained-memory';
import { summarize } from './stats';

/** Five readings of the Jupyter server's process tree (server + kernels), 200 ms apart, in MiB RSS. */
async function readings(serverPid: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < 5; i++) {
    out.push(treeMemory(serverPid).rssMiB);
    await sleep(200);
  }
  return out;
}

/**
 * Memory of N idle sub-agent-like kernels (bootstrapped, holding a 100k-int list) loaded, then
 * after shutting them down: what unloading can free at best. Then the same with N real retained
 * sub-agents that Recur's idle timer unloads (bench/retained-memory.ts).
 */
export const kernelMemory: Benchmark = {
  name: 'kernel-memory',
  async run(ctx) {
    const n = size(ctx, 8, 3);
    const server = readPid(join(stackPaths(ctx.config).run, 'jupyter.pid'));
    if (!server) throw new Error('no pid file for the bench stack’s Jupyter server');
    const { kernels, close } = await benchKernels(ctx.config);
    const sessions = Array.from({ length: n }, newSessionId);
    try {
      const before = new Set(processTree(server.pid));
      ctx.log(`kernel-memory: ${n} kernels`);
      for (const s of sessions) {
        await kernels.start(s);
        await kernels.execute(s, 'data = list(range(100_000))');
      }
      await sleep(1000);
      const loaded = await readings(server.pid);
      const kernelPids = processTree(server.pid).filter((p) => !before.has(p));
      const perKernel = kernelPids.map(memoryOf).filter((m): m is ProcMemory => m !== null);
      for (const s of sessions) await kernels.shutdown(s);
      for (let i = 0; i < 50 && processTree(server.pid).some((p) => kernelPids.includes(p)); i++) await sleep(200);
      const unloaded = await readings(server.pid);
      const raw = compare({
        name: 'kernel-memory/loaded-vs-unloaded', title: `Jupyter server + ${n} idle kernels: loaded vs shut down`, unit: 'MiB RSS', better: 'lower',
        subject: { label: `${n} kernels loaded`, samples: loaded },
        baseline: { label: 'the same kernels shut down (the unload baseline)', samples: unloaded },
        limits: 'one ipykernel process per sub-agent (interpreter, IPython, recur_kernel); RSS counts shared pages once per process',
        details: {
          kernels: n,
          kernelRssMiB: perKernel.length ? summarize(perKernel.map((m) => m.rssMiB)) : null,
          kernelPssMiB: perKernel.length ? summarize(perKernel.map((m) => m.pssMiB)) : null,
          freedMiB: summarize(loaded).median - summarize(unloaded).median,
        },
      });
      const retained = await retainedMemory(ctx, server.pid, n, size(ctx, 30, 15));
      ctx.plot('kernel-memory.png', barChart({
        title: `JUPYTER TREE MEMORY, ${n} KERNELS / SUB-AGENTS`, yLabel: 'MIB RSS', legend: ['BARE KERNELS', 'RETAINED SUB-AGENTS'],
        groups: [
          { label: 'LOADED', values: [summarize(loaded).median, retained.subject.summary.median] },
          { label: 'UNLOADED', values: [summarize(unloaded).median, retained.baseline.summary.median] },
        ],
      }));
      return [raw, retained];
    } finally {
      for (const s of sessions) await kernels.shutdown(s).catch(() => undefined);
      await close();
    }
  },
};
