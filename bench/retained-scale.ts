import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkflowHandle } from '@temporalio/client';
import type { RecurConfig } from '../config';
import { join } from 'node:path';
import { KernelAPI, ServerConnection } from '@jupyterlab/services';
import { kafkaClient } from '../config/connections';
import { jupyterConnection, stackPaths } from '../config/home-paths';
import { readPid } from '../services/home/process';
import { readSessionLog } from '../services/projector';
import { deliverMessageSignal } from '../workflows/messages';
import { py, scriptedAgents, sessionInput, startBenchWorker } from './bench-worker';
import { size, type BenchContext, type Benchmark } from './benchmark';
import { lineChart } from './chart';
import { countLogged } from './retained-memory';
import { treeMemory } from './proc-memory';
import { compare } from './report';
import { summarize } from './stats';

/** Each sub-agent's one task: hold a 100k-int list in its kernel, then answer and stay retained. */
const HOLD = [py('data = list(range(100_000))'), 'held'];
export const holderNames = (n: number) => Array.from({ length: n }, (_, i) => `h${i}`);

/**
 * The waves of spawns after which the bench takes a reading: the first (the cap is not yet
 * full), then every wave whose total reaches the next of `targets`, and the last.
 */
export function checkpointWaves(total: number, wave: number, targets: readonly number[]): number[] {
  const waves = Math.ceil(total / wave);
  const out = new Set([1, waves]);
  for (const t of targets) if (t < total) out.add(Math.ceil(t / wave));
  return [...out].sort((a, b) => a - b);
}

/**
 * A root that spawns `total` sub-agents `wave` at a time, waits for each wave's answers and, after
 * each checkpoint wave, for a message from the user (the bench's cue that it has read memory)
 * before it goes on. Waves stay below the cap: their kernels fit beside the root's, and room for
 * them is made by unloading the idle retained sub-agents of earlier waves.
 */
export function scaleScript(total: number, wave: number, checkpoints: readonly number[]): Record<string, string[]> {
  const root = py(`
names = ${JSON.stringify(holderNames(total))}
checkpoints = ${JSON.stringify(checkpoints)}
for w in range(1, len(names) // ${wave} + (len(names) % ${wave} > 0) + 1):
    hs = [rlm("hold data", name=n) for n in names[(w - 1) * ${wave}:w * ${wave}]]
    answers = [h.result(timeout=900) for h in hs]
    if w in checkpoints:
        while agent_message.recv(timeout=3600)["from"] != "user":
            pass
print(len(names))`);
  return { root: [root, 'done'], ...Object.fromEntries(holderNames(total).map((n) => [n, HOLD])) };
}

/**
 * Walks a started scaleScript tree through its checkpoints: waits until each checkpoint wave's
 * sub-agents have answered (from the tree's log), takes `read`, then tells the root to go on.
 */
export async function walkCheckpoints<T>(o: {
  ctx: BenchContext; config: RecurConfig; handle: WorkflowHandle; total: number; wave: number; checkpoints: readonly number[];
  what: string; read: (retained: number) => Promise<T>;
}): Promise<T[]> {
  const sessionId = o.handle.workflowId;
  const children = holderNames(o.total).map((n) => `${sessionId}/${n}`);
  const kafka = kafkaClient(o.config, 'reader', 'bench-reader');
  const readings: T[] = [];
  for (const w of o.checkpoints) {
    const want = Math.min(o.total, w * o.wave);
    o.ctx.log(`${o.what}: waiting for ${want} of ${o.total} retained sub-agents`);
    for (const t0 = Date.now(); ; await sleep(1000)) {
      const tree = await readSessionLog({ kafka, topic: o.config.kafka.topic, sessionId });
      if (countLogged(tree.sessions, children, 'SessionCompleted') >= want) break;
      if (Date.now() - t0 > 1_800_000) throw new Error(`${o.what}: ${want} sub-agents did not answer within 30 min`);
    }
    readings.push(await o.read(want));
    o.ctx.log(`${o.what}: ${JSON.stringify(readings.at(-1))}`);
    await o.handle.signal(deliverMessageSignal, { messageId: `${sessionId}#go-${w}`, from: 'user', text: 'go on' });
  }
  await o.handle.result();
  return readings;
}

interface Reading {
  retained: number;
  loaded: number;
  jupyterMiB: number;
  workerMiB: number;
}

/**
 * One tree of up to 1,000 retained sub-agents under the host's cap on loaded kernels
 * (RECUR_MAX_LOADED_KERNELS, default 25): the Jupyter server's tree (server and kernels) and the
 * worker's RSS as the tree grows. Memory should follow the loaded kernels, which the cap holds,
 * not the retained sub-agents, which live on as snapshots and idle workflows.
 */
export const retainedScale: Benchmark = {
  name: 'retained-scale',
  async run(ctx) {
    const cap = size(ctx, ctx.config.agent.maxLoadedKernels, 6);
    const total = size(ctx, 1000, 40);
    const wave = cap - 2;
    const checkpoints = checkpointWaves(total, wave, ctx.quick ? [20] : [100, 250, 500]);
    const config = { ...ctx.config, agent: { ...ctx.config.agent, maxLoadedKernels: cap } };
    const server = readPid(join(stackPaths(config).run, 'jupyter.pid'));
    if (!server) throw new Error('no pid file for the bench stack’s Jupyter server');
    const settings = ServerConnection.makeSettings(jupyterConnection(config));
    const worker = await startBenchWorker(config);
    const agents = scaleScript(total, wave, checkpoints);
    const input = sessionInput(config, scriptedAgents(config, agents), {
      maxChildren: total, maxTreeSessions: total + 1, cellTimeoutSeconds: 86_400, idleUnloadSeconds: 86_400,
    });
    const read = async (retained: number): Promise<Reading> => {
      const samples: Reading[] = [];
      for (let i = 0; i < 5; i++, await sleep(200)) {
        samples.push({
          retained, loaded: (await KernelAPI.listRunning(settings)).length,
          jupyterMiB: treeMemory(server.pid).rssMiB, workerMiB: process.memoryUsage().rss / 2 ** 20,
        });
      }
      const med = (f: (r: Reading) => number) => summarize(samples.map(f)).median;
      return { retained, loaded: med((r) => r.loaded), jupyterMiB: med((r) => r.jupyterMiB), workerMiB: med((r) => r.workerMiB) };
    };
    const handle = await worker.client.workflow.start('agentSessionWorkflow', { taskQueue: worker.taskQueue, workflowId: input.sessionId, args: [input] });
    let readings: Reading[];
    try {
      readings = await walkCheckpoints({ ctx, config, handle, total, wave, checkpoints, what: `retained-scale (cap ${cap})`, read });
    } finally {
      await handle.terminate().catch(() => undefined);
      await worker.close();
    }
    ctx.plot('retained-scale.png', lineChart({
      title: `MEMORY VS RETAINED SUB-AGENTS, CAP ${cap}`, xLabel: 'RETAINED SUB-AGENTS IN THE TREE', yLabel: 'MIB RSS',
      series: [
        { label: 'JUPYTER SERVER + KERNELS', points: readings.map((r) => [r.retained, r.jupyterMiB] as const) },
        { label: 'WORKER', points: readings.map((r) => [r.retained, r.workerMiB] as const) },
      ],
    }));
    const [first, last] = [readings[0], readings.at(-1)!];
    const limits = `the cap (RECUR_MAX_LOADED_KERNELS=${cap}) keeps at most ${cap} kernels loaded; the rest are snapshots in the blob store and idle workflows in the worker's cache; one host`;
    const side = (r: Reading, f: (r: Reading) => number) => ({ label: `${r.retained} retained, ${r.loaded} kernels loaded`, samples: [f(r)] });
    return [
      compare({
        name: 'retained-scale/jupyter', title: `Jupyter server + kernels: ${last.retained} retained sub-agents against ${first.retained}`, unit: 'MiB RSS', better: 'lower',
        subject: side(last, (r) => r.jupyterMiB), baseline: side(first, (r) => r.jupyterMiB), limits, details: { cap, readings },
      }),
      compare({
        name: 'retained-scale/worker', title: `Worker: ${last.retained} retained sub-agents against ${first.retained}`, unit: 'MiB RSS', better: 'lower',
        subject: side(last, (r) => r.workerMiB), baseline: side(first, (r) => r.workerMiB), limits, details: { cap, readings },
      }),
    ];
  },
};
