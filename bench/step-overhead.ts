import { createModel } from '../activities/model';
import { deltas, summarize } from './stats';
import { runBareLoop } from './bare-loop';
import { benchKernels } from './bench-kernels';
import { newSessionId, py, scriptedModel, sessionEvents, sessionInput, startBenchWorker } from './bench-worker';
import { size, type BenchContext, type Benchmark } from './benchmark';
import { barChart } from './chart';
import { compare, type BenchResult, type Measured } from './report';
import { startSlowOpenAIServer } from './slow-openai-server';
import type { SessionResult } from '../workflows/session-types';

const TASK = 'benchmark session';
const cellCode = (i: number) => `x${i} = sum(range(100))\nprint(x${i})`;
const codes = (n: number) => Array.from({ length: n }, (_, i) => cellCode(i));
/** A step that changes the workspace, as most of a coding agent's do: the scan finds a file to log. */
const writeCode = (i: number) => `open('step.txt', 'w').write('${i}\\n')\nprint(${i})`;

/**
 * Per-step time of a durable session (model call → CellRequested → cell → CellExecuted →
 * ModelCalled, through Temporal, Kafka and Jupyter) against the bare loop on the same kernel
 * client and model. Recur's steps are the gaps between consecutive ModelCalled timestamps (the
 * workflow's clock); the first step of each side is dropped (kernel start-up, warm-up).
 */
async function recurSteps(ctx: BenchContext, model: string, env: NodeJS.ProcessEnv, steps: number): Promise<number[]> {
  const worker = await startBenchWorker(ctx.config, env);
  try {
    const input = sessionInput(ctx.config, model, { maxTurns: steps + 5 });
    const result = (await worker.client.workflow.execute('agentSessionWorkflow', {
      taskQueue: worker.taskQueue, workflowId: input.sessionId, args: [input],
    })) as SessionResult;
    if (result.status !== 'completed') throw new Error(`bench session ${input.sessionId} failed: ${result.kind}: ${result.reason}`);
    const calls = (await sessionEvents(ctx.config, input.sessionId)).filter((e) => e.type === 'ModelCalled');
    if (calls.length !== steps + 1) throw new Error(`expected ${steps + 1} model calls, the log has ${calls.length}`);
    return deltas(calls.map((e) => e.ts)).slice(1);
  } finally {
    await worker.close();
  }
}

async function bareSteps(ctx: BenchContext, model: string, env: NodeJS.ProcessEnv): Promise<number[]> {
  const k = await benchKernels(ctx.config);
  try {
    return (await runBareLoop({ kernels: k.kernels, model: createModel(model, env, { scriptedDirs: ctx.config.agent.scriptedDirs }) }, newSessionId(), TASK)).slice(1);
  } finally {
    await k.close();
  }
}

/**
 * One session each way before the rounds, not counted. A fresh stack warms up over its first
 * durable session (the broker compiles its hot paths as it serves): its steps take about 1.5
 * times those of the third, while the bare loop hardly changes. A stack that has served a while
 * is the steady state this compares; the first session's medians stay in the result's details,
 * so what a fresh stack pays is reported too (docs/performance.md, "A warm stack").
 */
async function warmUp(ctx: BenchContext, o: { key: string; model: string; env: NodeJS.ProcessEnv; steps: number }) {
  ctx.log(`step-overhead/${o.key}: warm-up, ${o.steps} steps each way, not counted`);
  const bare = summarize(await bareSteps(ctx, o.model, o.env)).median;
  const recur = summarize(await recurSteps(ctx, o.model, o.env, o.steps)).median;
  return { firstSessionMedianMs: recur, firstBareMedianMs: bare };
}

async function variant(ctx: BenchContext, o: { key: string; title: string; model: string; env: NodeJS.ProcessEnv; steps: number; limits: string }) {
  const first = ctx.quick ? {} : await warmUp(ctx, o);
  const recur: number[] = [];
  const bare: number[] = [];
  for (let round = 0; round < size(ctx, 2, 1); round++) {
    ctx.log(`step-overhead/${o.key}: round ${round + 1}, ${o.steps} steps each way`);
    bare.push(...(await bareSteps(ctx, o.model, o.env)));
    recur.push(...(await recurSteps(ctx, o.model, o.env, o.steps)));
  }
  return compare({
    name: `step-overhead/${o.key}`, title: o.title, unit: 'ms/step', better: 'lower',
    subject: { label: 'durable Recur session step', samples: recur },
    baseline: { label: 'bare in-process loop', samples: bare },
    limits: o.limits, details: { stepsPerSession: o.steps, addedMsPerStep: summarize(recur).median - summarize(bare).median, ...first },
  });
}

const GROUP_LABELS: Record<string, string> = { 'zero-latency': 'MODEL 0 MS', 'writes-file': 'WRITES A FILE', 'model-1s': 'MODEL 1 S' };

export const stepOverhead: Benchmark = {
  name: 'step-overhead',
  async run(ctx) {
    const results: BenchResult[] = [];
    const fast = size(ctx, 60, 8);
    const replies = [...codes(fast).map(py), 'done'];
    results.push(await variant(ctx, {
      key: 'zero-latency', title: 'Step time, scripted model (0 ms)', model: scriptedModel(ctx.config, replies), env: process.env, steps: fast,
      limits: 'the worker runs the plain steps in one activity, no Temporal round trip a step; each step\'s events go to the log in one Kafka transaction of the session\'s own, which fences any earlier writer of it (five broker round trips with kafkajs, and the broker\'s work on the transaction); docs/performance.md',
    }));
    results.push(await variant(ctx, {
      key: 'writes-file', title: 'Step time, scripted model (0 ms), each cell rewrites a file', env: process.env, steps: fast,
      model: scriptedModel(ctx.config, [...Array.from({ length: fast }, (_, i) => py(writeCode(i))), 'done']),
      limits: 'as at 0 ms, plus the scan that finds the change; its WorkspaceChanged goes to the log in the same batch as the cell\'s end',
    }));
    const slow = size(ctx, 12, 3);
    const server = await startSlowOpenAIServer(codes(slow), 1000);
    try {
      const env = { ...process.env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: 'sk-bench-dummy' };
      results.push(await variant(ctx, {
        key: 'model-1s', title: 'Step time, OpenAI-wire model with 1 s latency', model: 'openai/bench-model', env, steps: slow,
        limits: 'the simulated 1 s model latency; Recur adds the same fixed cost as at 0 ms',
      }));
    } finally {
      await server.close();
    }
    ctx.plot('step-overhead.png', barChart({
      title: 'TIME PER AGENT STEP', yLabel: 'MS (MEDIAN)', legend: ['RECUR (DURABLE)', 'BARE LOOP'],
      groups: (results as Measured[]).map((r) => ({ label: GROUP_LABELS[r.name.slice('step-overhead/'.length)], values: [r.subject.summary.median, r.baseline.summary.median] })),
    }));
    return results;
  },
};
