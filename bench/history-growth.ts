import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { py, scriptedModel, sessionInput, startBenchWorker } from './bench-worker';
import { size, type Benchmark } from './benchmark';
import { lineChart } from './chart';
import { compare } from './report';
import type { SessionResult } from '../workflows/session-types';

interface Checkpoint {
  runId: string;
  /** Model turns the session has taken (across runs). */
  turn: number;
  historyBytes: number;
  historyEvents: number;
}

/** The running run's history size, with the turn it was taken at (two equal queries around it, else none). */
async function checkpoint(handle: WorkflowHandle): Promise<Checkpoint | null> {
  try {
    const d = await handle.describe();
    if (d.status.name !== 'RUNNING' || d.historySize === undefined) return null;
    const before = await handle.query<{ turn: number }>('getStatus');
    const again = await handle.describe();
    const after = await handle.query<{ turn: number }>('getStatus');
    if (again.runId !== d.runId || before.turn !== after.turn || again.historySize === undefined) return null;
    return { runId: again.runId, turn: after.turn, historyBytes: again.historySize, historyEvents: again.historyLength };
  } catch {
    return null; // between runs (continue-as-new) or finished
  }
}

/** Every run of the session, first to last, with its final size and how many turns it took. */
async function runsOf(client: Client, id: string) {
  const runs = [];
  let runId: string | undefined = (await client.workflow.getHandle(id).describe()).runId;
  while (runId) {
    const handle: WorkflowHandle = client.workflow.getHandle(id, runId);
    const history: Awaited<ReturnType<WorkflowHandle['fetchHistory']>> = await handle.fetchHistory();
    const d = await handle.describe();
    const activities: Record<string, number> = {};
    for (const e of history.events ?? []) {
      const name = e.activityTaskScheduledEventAttributes?.activityType?.name;
      if (name) activities[name] = (activities[name] ?? 0) + 1;
    }
    const turns = activities.callModel ?? 0;
    runs.unshift({ runId, turns, historyEvents: d.historyLength, historyBytes: d.historySize ?? null, activities });
    runId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId || undefined;
  }
  return runs;
}

/** Activities scheduled per model turn, by type, over the whole session. */
function perStepCounts(runs: Array<{ turns: number; activities: Record<string, number> }>): Record<string, number> {
  const turns = runs.reduce((n, r) => n + r.turns, 0);
  const out: Record<string, number> = {};
  for (const r of runs) for (const [name, n] of Object.entries(r.activities)) out[name] = (out[name] ?? 0) + n;
  return Object.fromEntries(Object.entries(out).map(([name, n]) => [name, Number((n / turns).toFixed(2))]));
}

/**
 * Bytes per turn over windows of at least WINDOW turns within one run, at each window's end. A
 * checkpoint may fall anywhere inside a step, so a single step's gap is off by up to a step's
 * events; over a window that error shrinks to a tenth.
 */
const WINDOW = 10;
function marginal(points: Checkpoint[]): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let a = points[0];
  for (const b of points.slice(1)) {
    if (b.runId !== a.runId) a = b;
    else if (b.turn - a.turn >= WINDOW) {
      out.push([b.turn, (b.historyBytes - a.historyBytes) / (b.turn - a.turn)]);
      a = b;
    }
  }
  return out;
}

/**
 * Workflow history bytes per step over a long scripted session of cheap cells (`x = 1`): sampled
 * from the server (describe().historySize) while it runs, across continue-as-new runs. Invariant 5
 * says this is flat; the ratio compares the last quarter of the session with the first.
 */
export const historyGrowth: Benchmark = {
  name: 'history-growth',
  async run(ctx) {
    const steps = size(ctx, 2000, 200);
    const turnsPerRun = size(ctx, 500, 100);
    const worker = await startBenchWorker(ctx.config);
    try {
      const replies = [...Array.from({ length: steps }, () => py('x = 1')), 'done'];
      const input = sessionInput(ctx.config, scriptedModel(ctx.config, replies), { maxTurns: steps + 5, turnsPerRun });
      ctx.log(`history-growth: ${steps} steps, turnsPerRun ${turnsPerRun}, session ${input.sessionId}`);
      const handle = await worker.client.workflow.start('agentSessionWorkflow', { taskQueue: worker.taskQueue, workflowId: input.sessionId, args: [input] });
      let finished = false;
      const outcome = handle.result().finally(() => (finished = true)) as Promise<SessionResult>;
      const points: Checkpoint[] = [];
      while (!finished) {
        const c = await checkpoint(worker.client.workflow.getHandle(input.sessionId));
        if (c) points.push(c);
        await sleep(500);
      }
      const result = await outcome;
      if (result.status !== 'completed') throw new Error(`history session failed: ${result.kind}: ${result.reason}`);
      const runs = await runsOf(worker.client, input.sessionId);
      const perStep = marginal(points);
      const early = perStep.filter(([t]) => t <= steps / 4).map(([, b]) => b);
      const late = perStep.filter(([t]) => t > (steps * 3) / 4).map(([, b]) => b);
      if (!early.length || !late.length) throw new Error('no sampled window in the first or the last quarter of the session');
      ctx.plot('history-bytes.png', lineChart({
        title: 'WORKFLOW HISTORY SIZE', xLabel: 'STEP (MODEL TURNS, ACROSS CONTINUE-AS-NEW RUNS)', yLabel: 'BYTES IN CURRENT RUN',
        series: [{ label: 'HISTORY BYTES', points: points.map((p) => [p.turn, p.historyBytes]) }],
      }));
      ctx.plot('history-bytes-per-step.png', lineChart({
        title: 'HISTORY BYTES PER STEP', xLabel: 'STEP', yLabel: 'BYTES/STEP',
        series: [{ label: 'MARGINAL BYTES PER STEP', points: perStep }],
      }));
      return [compare({
        name: 'history-growth/bytes-per-step', title: `Workflow history bytes per step over ${steps} steps`, unit: 'bytes/step', better: 'lower',
        subject: { label: `steps ${Math.round((steps * 3) / 4)}-${steps}`, samples: late },
        baseline: { label: `steps 1-${steps / 4} of the same session`, samples: early },
        limits: 'the activities a step schedules (details.activitiesPerStep), each with a workflow task and its inputs and results in the history; windows of 10+ steps, ±1 step each',
        details: { steps, turnsPerRun, runs, checkpoints: points.length, activitiesPerStep: perStepCounts(runs) },
      })];
    } finally {
      await worker.close();
    }
  },
};
