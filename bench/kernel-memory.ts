import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stackPaths } from '../services/devstack';
import { readPid } from '../services/devstack/process';
import { benchKernels } from './bench-kernels';
import { newSessionId } from './bench-worker';
import { size, type Benchmark } from './benchmark';
import { barChart } from './chart';
import { processTree, memoryOf, treeMemory, type ProcMemory } from './proc-memory';
import { compare, notYet } from './report';
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
 * after shutting them down: what idle unload can free. The unload itself (snapshot, shut down,
 * reload on demand) is not built yet, so only its baseline is measured.
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
      ctx.plot('kernel-memory.png', barChart({
        title: `JUPYTER TREE MEMORY, ${n} KERNELS`, yLabel: 'MIB RSS', legend: ['MEDIAN'],
        groups: [{ label: 'LOADED', values: [summarize(loaded).median] }, { label: 'UNLOADED', values: [summarize(unloaded).median] }],
      }));
      return [
        compare({
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
        }),
        notYet('kernel-memory/idle-unload', 'Retained sub-agents unloaded by the idle timer',
          'idle unload is not built yet: no workflow timer snapshots an idle sub-agent and shuts its kernel down (agent.idleUnloadSeconds is read by nothing), so there is no unloaded-then-reloaded sub-agent to measure; the shut-down baseline above is what it could free'),
      ];
    } finally {
      for (const s of sessions) await kernels.shutdown(s).catch(() => undefined);
      await close();
    }
  },
};
