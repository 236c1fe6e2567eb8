import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configToEnv } from '../config';
import { temporalAddress } from '../config/connections';
import { repoRoot } from '../services/home/repo-root';
import { connectDaemon } from '../services/cli/daemon-client';
import type { StartSessionReply } from '../services/daemon/api-types';
import { startBareWorker, type BareWorker } from './bare-worker';
import { scriptedModel } from './bench-worker';
import { size, type BenchContext, type Benchmark } from './benchmark';
import { barChart } from './chart';
import { runProcess } from './run-process';
import { compare } from './report';
import { summarize } from './stats';
import { completions, eventMs, until, type HistoryEvent } from './temporal-history';

const TASK = 'benchmark session';
const dist = (...p: string[]) => join(repoRoot(), 'dist', ...p);

/** When a run reached its two milestones, in epoch ms (server time), or ms after its start once subtracted. */
interface Marks {
  started: number;
  modelCalled: number;
}

const since = (m: Marks, t0: number): Marks => ({ started: m.started - t0, modelCalled: m.modelCalled - t0 });

/** A Recur session's first append done (SessionStarted logged) and the first append done after its first model call (ModelCalled logged). */
function recurMarks(events: HistoryEvent[]): Marks | null {
  const appends = completions(events, 'appendEvents');
  const model = completions(events, 'callModel')[0];
  const logged = model && appends.find((e) => Number(e.eventId) > Number(model.eventId));
  return appends.length && logged ? { started: eventMs(appends[0]), modelCalled: eventMs(logged) } : null;
}

/** The bare workflow's first and third activities done: the same places in the same shape. */
function bareMarks(events: HistoryEvent[]): Marks | null {
  const steps = completions(events, 'step');
  return steps.length >= 3 ? { started: eventMs(steps[0]), modelCalled: eventMs(steps[2]) } : null;
}

interface Sides {
  cli: Marks[];
  post: Marks[];
  bareProcess: Marks[];
  bareInProcess: Marks[];
  cliHelp: number[];
  nodeBoot: number[];
}

/** One round of every way in, interleaved so that the machine's drift hits each alike. */
async function round(ctx: BenchContext, bare: BareWorker, cwd: string, out: Sides): Promise<void> {
  const { CI: _ci, ...userEnv } = process.env; // CI mode would end the run by stopping the stack
  const env = { ...userEnv, ...configToEnv(ctx.config) };
  const recur = bare.client; // Recur's sessions live in the same namespace
  const model = () => scriptedModel(ctx.config, ['done']);

  let t0 = Date.now();
  const { stderr } = await runProcess(process.execPath, [dist('services', 'cli', 'main.js'), 'run', TASK, '--model', model(), '--once'], { env, cwd });
  const id = /session (\S+) started/.exec(stderr)?.[1];
  if (!id) throw new Error(`recur run printed no session id: ${stderr.slice(-500)}`);
  out.cli.push(since(await until(recur, id, 60_000, recurMarks), t0));

  const bareId = `bench-bare-start-${randomBytes(4).toString('hex')}`;
  t0 = Date.now();
  await runProcess(process.execPath, [dist('bench', 'bare-start-main.js'), temporalAddress(ctx.config), ctx.config.temporal.namespace, bare.taskQueue, bareId], { env });
  out.bareProcess.push(since(await until(bare.client, bareId, 60_000, bareMarks), t0));

  t0 = Date.now();
  const { sessionId } = await connectDaemon(ctx.config).post<StartSessionReply>('/v1/sessions', { task: TASK, model: model(), cwd, retain: false });
  out.post.push(since(await until(recur, sessionId, 60_000, recurMarks), t0));
  await recur.workflow.getHandle(sessionId).result();

  const inProcessId = `bench-bare-start-${randomBytes(4).toString('hex')}`;
  t0 = Date.now();
  await bare.client.workflow.start('bareStartWorkflow', { taskQueue: bare.taskQueue, workflowId: inProcessId, args: [] });
  out.bareInProcess.push(since(await until(bare.client, inProcessId, 60_000, bareMarks), t0));

  t0 = Date.now();
  await runProcess(process.execPath, [dist('services', 'cli', 'main.js'), 'help'], { env, cwd });
  out.cliHelp.push(Date.now() - t0);
  t0 = Date.now();
  await runProcess(process.execPath, ['-e', '0'], { env, cwd });
  out.nodeBoot.push(Date.now() - t0);
}

const median = (xs: number[]) => summarize(xs).median;

/**
 * `recur run` as a user types it (a new CLI process, the daemon's POST, the daemon's worker) to
 * the session's SessionStarted and first ModelCalled logged, against a program of its own that
 * starts a bare three-activity workflow on an idle, polling bare worker. Times are Temporal's
 * server timestamps of the activities' completion, from the moment each process was spawned.
 */
export const sessionStart: Benchmark = {
  name: 'session-start',
  async run(ctx) {
    const bare = await startBareWorker(ctx.config);
    const cwd = mkdtempSync(join(tmpdir(), 'recur-bench-start-'));
    const sides = (): Sides => ({ cli: [], post: [], bareProcess: [], bareInProcess: [], cliHelp: [], nodeBoot: [] });
    const out = sides();
    try {
      // The first session of a worker pays its one-time costs (connections, workflow caches): not a start to quote.
      ctx.log('session-start: warm-up round');
      await round(ctx, bare, cwd, sides());
      const rounds = size(ctx, 10, 3);
      for (let i = 0; i < rounds; i++) {
        ctx.log(`session-start: round ${i + 1} of ${rounds}`);
        await round(ctx, bare, cwd, out);
      }
    } finally {
      rmSync(cwd, { recursive: true, force: true });
      await bare.close();
    }
    const pick = (ms: Marks[], k: keyof Marks) => ms.map((m) => m[k]);
    const details = {
      medianMs: {
        cliHelpProcess: median(out.cliHelp), nodeBoot: median(out.nodeBoot),
        daemonPostToSessionStarted: median(pick(out.post, 'started')), daemonPostToModelCalled: median(pick(out.post, 'modelCalled')),
        bareInProcessToFirstActivity: median(pick(out.bareInProcess, 'started')), bareInProcessToThirdActivity: median(pick(out.bareInProcess, 'modelCalled')),
      },
    };
    const limits = 'baseline: a new Node process that loads only the Temporal client, connects and starts a workflow of three empty activities on a bare worker already polling its queue (first activity done vs SessionStarted, third vs ModelCalled). ' +
      'Recur adds the CLI process (config, telemetry, command modules), its POST to the daemon, the daemon’s start of the workflow, a workspace scan of an empty directory and appends to Kafka with acks=all; details split it';
    const results = (['started', 'modelCalled'] as const).map((k) => compare({
      name: `session-start/${k === 'started' ? 'session-started' : 'first-model-call'}`,
      title: k === 'started' ? '`recur run` to SessionStarted logged' : '`recur run` to first ModelCalled logged',
      unit: 'ms', better: 'lower',
      subject: { label: '`recur run` (new CLI process, daemon, worker)', samples: pick(out.cli, k) },
      baseline: { label: `bare client process, ${k === 'started' ? 'first' : 'third'} activity done`, samples: pick(out.bareProcess, k) },
      limits, details,
    }));
    ctx.plot('session-start.png', barChart({
      title: 'SESSION START', yLabel: 'MS (MEDIAN)', legend: ['RECUR RUN', 'DAEMON POST', 'BARE PROCESS', 'BARE IN-PROCESS'],
      groups: (['started', 'modelCalled'] as const).map((k) => ({
        label: k === 'started' ? 'SESSIONSTARTED' : 'FIRST MODELCALLED',
        values: [out.cli, out.post, out.bareProcess, out.bareInProcess].map((ms) => median(pick(ms, k))),
      })),
    }));
    return results;
  },
};
