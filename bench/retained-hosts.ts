import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { KernelAPI, ServerConnection } from '@jupyterlab/services';
import type { RecurConfig } from '../config';
import { temporalConnection } from '../config/connections';
import { jupyterConnection, stackPaths } from '../config/home-paths';
import { homeHosts, restartDaemon, startHost, stopHost } from '../services/devstack';
import { hostConfig } from '../services/devstack/hosts';
import { readPid } from '../services/home/process';
import { hostWorkerPid } from '../services/host/paths';
import { scriptedAgents, sessionInput } from './bench-worker';
import { size, type Benchmark } from './benchmark';
import { lineChart } from './chart';
import { memoryOf, treeMemory } from './proc-memory';
import { compare } from './report';
import { checkpointWaves, scaleScript, walkCheckpoints } from './retained-scale';

const EXTRA_HOST = 'bench-b';

interface HostReading {
  retained: number;
  /** Kernels loaded on each host, by host id. */
  loaded: Record<string, number>;
  jupyterMiB: number;
  workersMiB: number;
}

/** One host's Jupyter tree and worker, as the bench reads them. */
async function readHost(c: RecurConfig): Promise<{ loaded: number; jupyterMiB: number; workerMiB: number }> {
  const server = readPid(join(stackPaths(c).hostRun, 'jupyter.pid'));
  const worker = readPid(hostWorkerPid(c));
  if (!server || !worker) throw new Error(`retained-hosts: host ${c.hostId} has no Jupyter server or worker running`);
  return {
    loaded: (await KernelAPI.listRunning(ServerConnection.makeSettings(jupyterConnection(c)))).length,
    jupyterMiB: treeMemory(server.pid).rssMiB,
    workerMiB: memoryOf(worker.pid)?.rssMiB ?? 0,
  };
}

/**
 * The retained-scale tree spread over two hosts (the stack's `local` and one `recur host start`
 * would run), each capped at the same number of loaded kernels: what the cap holds is each host's
 * Jupyter tree, and placement spreads the tree's kernels over both. Runs on the stack's own
 * workers (supervised processes), so the daemon restarts with the cap first.
 */
export const retainedHosts: Benchmark = {
  name: 'retained-hosts',
  async run(ctx) {
    const cap = size(ctx, ctx.config.agent.maxLoadedKernels, 6);
    const total = size(ctx, 1000, 40);
    const wave = 2 * cap - 4;
    const checkpoints = checkpointWaves(total, wave, ctx.quick ? [20] : [250, 500]);
    const config = { ...ctx.config, agent: { ...ctx.config.agent, maxLoadedKernels: cap } };
    const log = (line: string) => ctx.log(`[stack] ${line}`);
    await restartDaemon(config, log);
    await startHost(config, EXTRA_HOST, {}, log);
    const hosts = [config, hostConfig(config, homeHosts(config).find((h) => h.id === EXTRA_HOST)!)];
    const connection = await Connection.connect(temporalConnection(config));
    const client = new Client({ connection, namespace: config.temporal.namespace });
    const input = sessionInput(config, scriptedAgents(config, scaleScript(total, wave, checkpoints)), {
      maxChildren: total, maxTreeSessions: total + 1, cellTimeoutSeconds: 86_400, idleUnloadSeconds: 86_400,
    });
    const handle = await client.workflow.start('agentSessionWorkflow', { taskQueue: config.temporal.taskQueue, workflowId: input.sessionId, args: [input] });
    let readings: HostReading[];
    try {
      readings = await walkCheckpoints({
        ctx, config, handle, total, wave, checkpoints, what: `retained-hosts (cap ${cap} on each of 2 hosts)`,
        read: async (retained): Promise<HostReading> => {
          const each = await Promise.all(hosts.map(readHost));
          return {
            retained, loaded: Object.fromEntries(hosts.map((h, i) => [h.hostId, each[i].loaded])),
            jupyterMiB: each.reduce((s, r) => s + r.jupyterMiB, 0), workersMiB: each.reduce((s, r) => s + r.workerMiB, 0),
          };
        },
      });
    } finally {
      await handle.terminate().catch(() => undefined);
      await connection.close();
      await stopHost(config, EXTRA_HOST, log);
      await restartDaemon(ctx.config, log);
    }
    ctx.plot('retained-hosts.png', lineChart({
      title: `TWO HOSTS, CAP ${cap} EACH`, xLabel: 'RETAINED SUB-AGENTS IN THE TREE', yLabel: 'MIB RSS',
      series: [
        { label: 'BOTH JUPYTER TREES', points: readings.map((r) => [r.retained, r.jupyterMiB] as const) },
        { label: 'BOTH WORKERS', points: readings.map((r) => [r.retained, r.workersMiB] as const) },
      ],
    }));
    const [first, last] = [readings[0], readings.at(-1)!];
    const label = (r: HostReading) => `${r.retained} retained, kernels loaded ${JSON.stringify(r.loaded)}`;
    return [compare({
      name: 'retained-hosts/jupyter', title: `Two hosts' Jupyter trees: ${last.retained} retained sub-agents against ${first.retained}`, unit: 'MiB RSS', better: 'lower',
      subject: { label: label(last), samples: [last.jupyterMiB] }, baseline: { label: label(first), samples: [first.jupyterMiB] },
      limits: `placement spreads the tree's kernels over both hosts; each host's cap (RECUR_MAX_LOADED_KERNELS=${cap}) holds its own`, details: { cap, readings },
    })];
  },
};
