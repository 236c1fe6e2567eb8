import { randomBytes } from 'node:crypto';
import { kafkaClient } from '../config/connections';
import { readSessionLog } from '../services/projector';
import type { SessionResult } from '../workflows/session-types';
import { startBareWorker, type BareWorker } from './bare-worker';
import type { bareParentWorkflow } from './bare-workflows';
import { py, scriptedAgents, sessionInput, startBenchWorker, type BenchWorker } from './bench-worker';
import { size, type BenchContext, type Benchmark } from './benchmark';
import { barChart } from './chart';
import { compare } from './report';
import { summarize } from './stats';

/** How long after `t0` the last of the children reached each milestone, in ms. */
export interface FanOutTimes {
  allStarted: number;
  allAnswered: number;
}

const names = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`);

/** A root whose first cell starts its kernel and whose second spawns `n` sub-agents at once and waits for their answers; each answers at once, with no cell. */
export function fanOutScript(n: number): Record<string, string[]> {
  const spawn = py(`hs = [rlm("answer at once", name=n) for n in ${JSON.stringify(names(n))}]\nprint(len([h.result(timeout=600) for h in hs]))`);
  return { root: [py('pass'), spawn, 'done'], ...Object.fromEntries(names(n).map((name) => [name, ['answered']])) };
}

/** From a tree's log: the spawning cell's CellRequested to the last child's SessionStarted and SessionCompleted, all on the workflows' clocks. Pure. */
export function fanOutTimes(sessions: ReadonlyMap<string, ReadonlyArray<{ type: string; ts: number }>>, rootId: string, children: readonly string[]): FanOutTimes {
  const cell = (sessions.get(rootId) ?? []).filter((e) => e.type === 'CellRequested')[1];
  if (!cell) throw new Error(`fan-out: ${rootId} logged no spawning cell`);
  const last = (type: string) => Math.max(...children.map((id) => {
    const e = (sessions.get(id) ?? []).find((x) => x.type === type);
    if (!e) throw new Error(`fan-out: ${id} logged no ${type}`);
    return e.ts;
  })) - cell.ts;
  return { allStarted: last('SessionStarted'), allAnswered: last('SessionCompleted') };
}

async function recurFanOut(ctx: BenchContext, worker: BenchWorker, n: number): Promise<FanOutTimes> {
  const input = sessionInput(ctx.config, scriptedAgents(ctx.config, fanOutScript(n)), { maxChildren: n, maxTreeSessions: n + 1 });
  const result = (await worker.client.workflow.execute('agentSessionWorkflow', { taskQueue: worker.taskQueue, workflowId: input.sessionId, args: [input] })) as SessionResult;
  if (result.status !== 'completed') throw new Error(`fan-out session ${input.sessionId} failed: ${result.kind}: ${result.reason}`);
  const log = await readSessionLog({ kafka: kafkaClient(ctx.config, 'reader', 'bench-reader'), topic: ctx.config.kafka.topic, sessionId: input.sessionId });
  return fanOutTimes(log.sessions, input.sessionId, names(n).map((c) => `${input.sessionId}/${c}`));
}

async function bareFanOut(bare: BareWorker, n: number): Promise<FanOutTimes> {
  const r = await bare.client.workflow.execute<typeof bareParentWorkflow>('bareParentWorkflow', {
    taskQueue: bare.taskQueue, workflowId: `bench-bare-parent-${randomBytes(4).toString('hex')}`, args: [n],
  });
  return { allStarted: Math.max(...r.children.map((c) => c.started)) - r.t0, allAnswered: Math.max(...r.children.map((c) => c.answered)) - r.t0 };
}

/**
 * One cell spawning `n` sub-agents (rlm() from the kernel, each a child workflow that logs
 * SessionStarted, calls its scripted model and logs its answer) to the last one started and the
 * last one answered, against a bare parent workflow starting `n` bare child workflows at once.
 */
export const fanOut: Benchmark = {
  name: 'fan-out',
  async run(ctx) {
    const n = size(ctx, 50, 10);
    const recur: FanOutTimes[] = [];
    const bare: FanOutTimes[] = [];
    const rounds = size(ctx, 3, 1);
    const worker = await startBenchWorker(ctx.config);
    const bareWorker = await startBareWorker(ctx.config);
    try {
      // A fresh worker's first workflows pay its one-time costs (workflow contexts, connections): a small tree each way first, not counted.
      ctx.log('fan-out: warm-up, 2 children each way');
      await bareFanOut(bareWorker, 2);
      await recurFanOut(ctx, worker, 2);
      for (let i = 0; i < rounds; i++) {
        ctx.log(`fan-out: round ${i + 1} of ${rounds}, ${n} children each way`);
        bare.push(await bareFanOut(bareWorker, n));
        recur.push(await recurFanOut(ctx, worker, n));
      }
    } finally {
      await bareWorker.close();
      await worker.close();
    }
    const limits = 'Recur’s spawns go one at a time: each rlm() is a bridge call from the kernel, a SubagentSpawned append (Kafka, acks=all) queued behind the parent’s others, then startChild; ' +
      'each child appends SessionStarted, calls its model and appends its answer. The bare parent starts all children in one workflow task and each runs one empty activity. ' +
      `Recur counts from the spawning cell’s CellRequested (so includes the cell’s dispatch), the bare side from the parent’s first workflow task; ${rounds} round(s)`;
    const results = (['allStarted', 'allAnswered'] as const).map((k) => compare({
      name: `fan-out/${k === 'allStarted' ? 'all-started' : 'all-answered'}`,
      title: `${n} sub-agents from one cell: until all ${k === 'allStarted' ? 'started' : 'answered'}`,
      unit: 'ms', better: 'lower',
      subject: { label: `${n} Recur sub-agents via rlm()`, samples: recur.map((t) => t[k]) },
      baseline: { label: `${n} bare child workflows`, samples: bare.map((t) => t[k]) },
      limits, details: { children: n },
    }));
    ctx.plot('fan-out.png', barChart({
      title: `FAN-OUT OF ${n}`, yLabel: 'MS (MEDIAN)', legend: ['RECUR', 'BARE TEMPORAL'],
      groups: (['allStarted', 'allAnswered'] as const).map((k) => ({
        label: k === 'allStarted' ? 'ALL STARTED' : 'ALL ANSWERED',
        values: [summarize(recur.map((t) => t[k])).median, summarize(bare.map((t) => t[k])).median],
      })),
    }));
    return results;
  },
};
