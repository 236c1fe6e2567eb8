import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { loadConfig } from '../../config';
import { timeSkippingServer } from '../../services/devstack';
import { initWorkspace } from '../../services/research/init-workspace';
import { researchStart } from '../../services/research/research-spec';
import { readTask } from '../../services/research/tasks';
import { sessionWorkspaces } from '../../services/sandbox';
import type { SessionResult } from '../../workflows/session-types';
import { cliInProcess } from '../helpers/cli-in-process';
import { SessionHarness, py, type SessionRun } from '../helpers/session-harness';

const task = readTask('nqm-speedrun')!;
const HOUR = 3600_000;
const PER_STEP = task.manifest.simSecondsPerStep!;

/**
 * The agent's kernel code: `idea(i)` writes the baseline with 3000 + i steps to its own file (8
 * seeds of it stand for (3000 + i)·8·0.15 s, an hour, on the virtual executor); `top_up()` keeps
 * `inflight` experiments running until `total` have been asked for.
 */
const SETUP = (total: number, inflight: number) => `
import os
SRC = open("train.py").read()
A, B = SRC.index("# ==== EDITABLE: optimizer config ===="), SRC.index("# ==== END ====")
os.makedirs("ideas", exist_ok=True)
asked = 0
def idea(i):
    f = f"ideas/idea{i}.py"
    config = {"lr": 1.0, "momentum": 0.8, "schedule": "cosine", "cooldown_frac": 1.0, "train_steps": 3000 + i}
    open(f, "w").write(SRC[:A] + "# ==== EDITABLE: optimizer config ====\\nCONFIG = " + repr(config) + "\\n" + SRC[B:])
    return f
def top_up():
    global asked
    running = sum(1 for r in ledger.query() if r["status"] == "queued")
    while running < ${inflight} and asked < ${total}:
        asked += 1
        research.trial(n=8, idea=f"idea {asked}", file=idea(asked))
        running += 1
    print("asked", asked, "running", running)
`;

interface Report { experiments: number; time: { wallMs: number; idleFraction: number; longestIdle: { ms: number } | null } }

describe('the virtual executor on a time-skipping Temporal server: hours of experiments in seconds (real Kafka, Jupyter, kernels, judge; scripted model)', () => {
  let env: TestWorkflowEnvironment;
  let h: SessionHarness;
  beforeAll(async () => {
    const server = timeSkippingServer(loadConfig());
    if (!existsSync(server)) throw new Error(`no time-skipping Temporal server at ${server}: run \`recur setup --virtual-clock\` (npm test does)`);
    env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: server } } });
    h = new SessionHarness({ RECUR_TEMPORAL_ADDRESS: env.address, RECUR_JOB_EXECUTOR: 'virtual' });
    await h.start();
  }, 120_000);
  afterAll(async () => {
    await h?.stop();
    await env?.teardown();
  });

  /** A research session on a fresh workspace, started and awaited through the time-skipping client (awaiting a result lets the clock skip). */
  async function research(replies: string[]): Promise<SessionRun> {
    const dir = mkdtempSync(join(tmpdir(), 'recur-virtual-'));
    const ws = join(dir, 'w');
    initWorkspace({ task, dir: ws, knowledge: 'weights-only' });
    expect(spawnSync('chmod', ['-R', 'a+rwX', dir]).status).toBe(0);
    const start = researchStart(task, 'weights-only', undefined);
    const input = { ...h.input({ root: replies }, 'beat the nqm-speedrun record'), research: start.spec };
    sessionWorkspaces(h.config).record(input.sessionId, { dir: ws, group: ws, shared: [], knowledge: start.knowledge });
    const handle = await env.client.workflow.start('agentSessionWorkflow', { taskQueue: h.taskQueue, workflowId: input.sessionId, args: [input] });
    return h.read(input.sessionId, await handle.result() as SessionResult);
  }

  const report = async (id: string): Promise<Report> => {
    const cli = await cliInProcess(['research', 'report', id, '--json', '--out', mkdtempSync(join(tmpdir(), 'recur-report-'))]);
    expect(cli.code).toBe(0);
    return JSON.parse(cli.out[0]) as Report;
  };

  it('a seven-hour run whose agent keeps two experiments going is idle under 5% of the time, and the feed releases its 6-hour record into it', async () => {
    const TOTAL = 14;
    // Woken by each end, the agent tops up; its answer with nothing left running ends the session.
    const replies = [py(`${SETUP(TOTAL, 2)}\ntop_up()`), ...Array.from({ length: 3 * TOTAL }, (_, i) => (i % 2 === 0 ? 'Experiments are running; their ends will wake me.' : py('top_up()')))];
    const t0 = Date.now();
    const run = await research(replies);
    const realMs = Date.now() - t0;
    expect(run.result).toEqual({ status: 'completed', answer: 'Experiments are running; their ends will wake me.' });

    const rows = run.of('ExperimentRecorded');
    expect(rows.map((r) => r.status)).toEqual(Array(TOTAL).fill('measured'));
    // Each job ended on the clock when its judged runs would have: its 8 seeds at 0.15 s a step.
    const events = run.sessions.get(run.id)!;
    const started = new Map(events.filter((e) => e.event.type === 'JobStarted').map((e) => [(e.event as { jobId: string }).jobId, e.ts]));
    for (const e of events.filter((s) => s.event.type === 'JobEnded')) {
      const ended = e.event as { jobId: string; seconds: number };
      const steps = rows.find((r) => r.jobId === ended.jobId)!.steps!;
      expect(ended.seconds).toBeCloseTo(steps * 8 * PER_STEP, 3);
      // Held from when its workflow asked for the run, a few ms before the executor's start report.
      expect(Math.abs(e.ts - started.get(ended.jobId)! - ended.seconds * 1000)).toBeLessThan(1000);
    }
    const span = events.at(-1)!.ts - events[0].ts;
    expect(span).toBeGreaterThan(6.5 * HOUR);

    // r1 came out six hours in, while the session waited on its experiments, and is the record now.
    const [released] = run.of('RecordReleased');
    expect(released).toMatchObject({ recordId: 'r1-nesterov', steps: 992, releaseAfterSeconds: 21600, inForce: true });
    const releasedAt = events.find((e) => e.event.type === 'RecordReleased')!.ts;
    expect(releasedAt - events[0].ts).toBeGreaterThanOrEqual(6 * HOUR);
    expect(releasedAt - events[0].ts).toBeLessThan(6 * HOUR + 60_000);
    expect(run.of('RecordReleased')).toHaveLength(1);

    const r = await report(run.id);
    expect(r.experiments).toBe(TOTAL);
    expect(r.time.wallMs).toBe(span);
    expect(r.time.idleFraction).toBeLessThan(0.05);
    process.stderr.write(`virtual run: ${(span / HOUR).toFixed(2)} h on the clock in ${(realMs / 1000).toFixed(1)} s; idle ${(100 * r.time.idleFraction).toFixed(2)}%\n`);
  }, 600_000);

  it('the same agent that stops after each result until a person checks in every two hours idles two hours in five', async () => {
    const replies = [
      py(`${SETUP(3, 1)}\nprint(schedule.add("every 2h", "A person checks in: carry on."))\ntop_up()`),
      'Experiment running.',
      ...Array.from({ length: 2 }, () => [py('print(ledger.query()[-1]["status"])'), 'I will wait for someone to check in.', py('top_up()'), 'Experiment running.']).flat(),
      py('print(ledger.query()[-1]["status"])\nschedule.cancel("s1")'),
      'Done.',
    ];
    const run = await research(replies);
    expect(run.result).toEqual({ status: 'completed', answer: 'Done.' });
    expect(run.of('ExperimentRecorded')).toHaveLength(3);
    expect(run.of('ScheduleFired')).toHaveLength(2);
    const r = await report(run.id);
    expect(r.time.wallMs).toBeGreaterThan(5 * HOUR);
    expect(r.time.idleFraction).toBeGreaterThan(0.3);
    expect(r.time.longestIdle!.ms).toBeGreaterThan(0.9 * HOUR);
    process.stderr.write(`waiting agent: ${(r.time.wallMs / HOUR).toFixed(2)} h on the clock; idle ${(100 * r.time.idleFraction).toFixed(1)}%\n`);
  }, 600_000);
});
