import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../config';
import type { StoredEvent } from '../../schemas';
import { status } from '../../services/devstack';
import { temporal } from '@temporalio/proto';
import { daemonPaths } from '../../services/daemon/paths';
import { nextRestartDelay, WORKER_RESTART_POLICY } from '../../services/daemon/restart-delay';
import { readPid } from '../../services/home/process';
import { workerIdentity } from '../../services/worker/lost-attempts';
import { until } from '../helpers/poll-tree-log';
import { py, SessionHarness, type SessionRun } from '../helpers/session-harness';
import { runOnStackWorker } from '../helpers/stack-session';
import { initWorkspace } from '../../services/research/init-workspace';
import { researchStart } from '../../services/research/research-spec';
import { readTask } from '../../services/research/tasks';
import { sessionWorkspaces } from '../../services/sandbox';

const task = readTask('nqm-speedrun')!;

/**
 * SIGKILL of the stack's worker process at seeded, random points of a three-agent session
 * (model calls, running cells, spawns, messages, snapshots): the session must end exactly as an
 * undisturbed run of the same script does. Kill points are positions in the tree's event log,
 * drawn from the seed (printed, so a failure can be replayed with it). CI runs one seed with
 * RECUR_CHAOS_KILLS kills; `npm run chaos` (docs/chaos.md) runs RECUR_CHAOS_RUNS seeds from
 * RECUR_CHAOS_SEED on, ten kills each, and writes the table of what each run came to.
 */
const SEED = Number(process.env.RECUR_CHAOS_SEED ?? 20261129);
const KILLS = Number(process.env.RECUR_CHAOS_KILLS ?? 4);
const RUNS = Number(process.env.RECUR_CHAOS_RUNS ?? 1);
const SEEDS = Array.from({ length: RUNS }, (_, i) => SEED + i);
const REPORT = process.env.RECUR_CHAOS_REPORT;
const STARTED = temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED;

/** Prints the session's plain variables: a cell run twice or lost shows up here. */
const SHOW_VARS = 'print({k: v for k, v in sorted(globals().items()) if isinstance(v, (int, str, float)) and not k.startswith("_")})';

const SCRIPT = {
  root: [
    py('n_cells = 1\na = rlm("count to three slowly", name="counter")\nb = rlm("sum the squares below ten", name="squarer")\nimport time\ntime.sleep(0.5)'),
    py('n_cells += 1\nva = a.result(timeout=600)\nvb = b.result(timeout=600)'),
    py(`n_cells += 1\nheard = len(agent_message.inbox())\n${SHOW_VARS}`),
    py('final(f"{va}|{vb}|{n_cells}")'),
  ],
  counter: [
    py('n_cells = 1\nimport time\ntotal = 0\nfor i in range(1, 4):\n    total += i\n    time.sleep(0.8)'),
    py('n_cells += 1\nreceipt = agent_message.send(f"counter total {total}")\nprint("sent")'),
    py(`n_cells += 1\n${SHOW_VARS}`),
    py('final(str(total))'),
  ],
  squarer: [
    py('n_cells = 1\nsq = sum(i * i for i in range(10))\nimport time\ntime.sleep(1.5)'),
    py(`n_cells += 1\n${SHOW_VARS}`),
    py('final(str(sq))'),
  ],
};

/**
 * The root's second cell waits for both helpers. Kills in quick succession raise the daemon's
 * restart delay to 10 s, so ten of them can keep the tree down for over a minute of wall time:
 * the cell's own limit must outlast that, or the run ends by the limit, not by the kills.
 */
const CHAOS_RUN = { task: 'add up what two helpers compute', limits: { cellTimeoutSeconds: 600 } };

/** mulberry32: a tiny seeded PRNG, so kill points are the same on every machine for a seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` distinct event positions in [from, to], ascending. */
function killPoints(seed: number, count: number, from: number, to: number): number[] {
  const next = prng(seed);
  const points = new Set<number>();
  while (points.size < Math.min(count, to - from + 1)) points.add(from + Math.floor(next() * (to - from + 1)));
  return [...points].sort((x, y) => x - y);
}

/**
 * Waits, where needed, until a kill of the stack's worker now would be followed by its successor
 * within `withinMs`: the daemon doubles its restart delay for each worker that dies within a
 * minute of starting (its log says by how much it last waited) and starts again from 0.5 s once one
 * has run a minute. A test that tells the successor's work from a heartbeat timeout's (10 s) needs
 * the successor well within it; waiting out the minute each time would cost a minute a test.
 */
async function restartsWithin(withinMs: number): Promise<void> {
  const rec = readPid(daemonPaths(loadConfig()).workerPid);
  if (!rec) throw new Error('the stack has no worker running');
  const uptimeMs = Date.now() - Date.parse(rec.startedAt);
  const delays = [...readFileSync(join(loadConfig().home, 'logs', 'daemon.log'), 'utf8').matchAll(/restart #\d+ in ([\d.]+)s/g)];
  const lastMs = delays.length === 0 ? null : Number(delays[delays.length - 1][1]) * 1000;
  if (nextRestartDelay(lastMs, uptimeMs) <= withinMs) return;
  const left = WORKER_RESTART_POLICY.resetAfterMs - uptimeMs;
  if (left > 0) await new Promise((resolve) => setTimeout(resolve, left + 500));
}

/** Pids whose command line is `cmd` (arguments joined by spaces). */
function processesWith(cmd: string): string[] {
  return readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ') === cmd;
    } catch {
      return false;
    }
  });
}

async function workerPid(config: ReturnType<typeof loadConfig>): Promise<number | null> {
  const w = (await status(config)).find((s) => s.name === 'worker');
  return w?.healthy && w.pid ? w.pid : null;
}

/** Each session's cells by position, keyed by the session's place in the tree (ids differ between runs). */
function cellsOf(run: SessionRun) {
  const out: Record<string, Array<{ status: string; outputs: string; executionCount: number | null }>> = {};
  for (const [id, events] of run.sessions) {
    out[id.slice(run.id.length) || '/'] = events
      .filter((e) => e.event.type === 'CellExecuted')
      .map((e) => {
        const c = e.event as Extract<StoredEvent['event'], { type: 'CellExecuted' }>;
        return { status: c.status, outputs: c.outputs, executionCount: c.executionCount };
      });
  }
  return out;
}

/** The events a run is judged by, counted per session (by its place in the tree) and type: a crash may add restores and reloads, never one of these. */
const EFFECTS = ['SessionStarted', 'ModelCalled', 'CellRequested', 'CellExecuted', 'SubagentSpawned', 'SubagentCompleted', 'MessageSent', 'MessageDelivered', 'SessionCompleted'];

function effectCounts(run: SessionRun): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [id, events] of run.sessions) {
    for (const e of events) {
      if (!EFFECTS.includes(e.type)) continue;
      const key = `${id.slice(run.id.length) || '/'} ${e.type}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return counts;
}

/** Events of the judged types the disturbed run logged more often than the undisturbed one (duplicates), and less often (lost). */
function compareRuns(baseline: SessionRun, disturbed: SessionRun): { duplicates: number; lost: number } {
  const want = effectCounts(baseline);
  const got = effectCounts(disturbed);
  let duplicates = 0;
  let lost = 0;
  for (const key of new Set([...want.keys(), ...got.keys()])) {
    const d = (got.get(key) ?? 0) - (want.get(key) ?? 0);
    if (d > 0) duplicates += d;
    else lost -= d;
  }
  return { duplicates, lost };
}

interface ChaosRow {
  seed: number;
  kills: number;
  completed: boolean;
  duplicates: number;
  lost: number;
  events: number;
}

describe('worker SIGKILL at seeded random points of a multi-agent session', () => {
  const h = new SessionHarness();
  const config = loadConfig();
  const rows: ChaosRow[] = [];
  let baseline: SessionRun;

  beforeAll(async () => {
    await h.connect();
    baseline = await runOnStackWorker(h, SCRIPT, CHAOS_RUN);
  }, 600_000);
  afterAll(async () => {
    await h.stop();
    if (REPORT) writeReport(REPORT, rows);
  });

  test('a worker killed mid-cell: its successor ends the lost attempt at once, not at its heartbeat timeout, takes the session off the dead sticky queue, and the cell runs once', async () => {
    await restartsWithin(WORKER_RESTART_POLICY.initialMs);
    const script = { root: [py('import time\nticks = 0\nfor _ in range(8):\n    ticks += 1\n    time.sleep(0.5)'), py('final(str(ticks))')] };
    let killedPid: number | null = null;
    const run = await runOnStackWorker(h, script, {
      task: 'tick for a while',
      onEvent: async (_n, e) => {
        if (killedPid !== null || e.type !== 'CellRequested') return;
        const handle = h.client.workflow.getHandle(e.sessionId);
        await until('the cell activity to start on the worker', async () => {
          const { raw } = await handle.describe();
          return raw.pendingActivities?.some((a) => a.activityType?.name === 'runCell' && a.state === STARTED) || undefined;
        });
        killedPid = await workerPid(config);
        if (killedPid !== null) process.kill(killedPid, 'SIGKILL');
      },
    });
    expect(killedPid).not.toBeNull();
    expect(run.result).toEqual({ status: 'completed', answer: '8' });
    expect(run.of('CellExecuted').map((c) => [c.status, c.executionCount])).toEqual([['ok', 1], ['ok', 2]]);
    const { events } = await h.client.workflow.getHandle(run.id).fetchHistory();
    const retried = (events ?? []).map((ev) => ev.activityTaskStartedEventAttributes).filter((a) => (a?.attempt ?? 1) > 1);
    expect(retried.map((a) => [a!.lastFailure?.message, a!.lastFailure?.applicationFailureInfo?.type])).toEqual([[`its worker (${workerIdentity(killedPid!)}) died`, 'WorkerLost']]);
    // Taken off the dead worker's sticky queue: no workflow task waited there for its timeout.
    expect((events ?? []).filter((ev) => ev.workflowTaskTimedOutEventAttributes).map((ev) => ev.workflowTaskTimedOutEventAttributes!.timeoutType)).toEqual([]);
  }, 300_000);

  test('a worker killed while it runs a session\'s steps: the retried allowance takes what was logged as its own, resumes the cell, and every cell runs once', async () => {
    await restartsWithin(3_000);
    const cells = Array.from({ length: 8 }, (_, i) => py(`import time\nruns = globals().get("runs", 0) + 1\ntime.sleep(0.3)\nprint(${i}, runs)`));
    let killedPid: number | null = null;
    let requested = 0;
    const run = await runOnStackWorker(h, { root: [...cells, py('final(str(runs))')] }, {
      task: 'count while the worker dies',
      onEvent: async (_n, e) => {
        // The fourth cell's request: the first cell placed the session, and the worker runs the steps since.
        if (killedPid !== null || e.type !== 'CellRequested' || ++requested < 4) return;
        const { raw } = await h.client.workflow.getHandle(e.sessionId).describe();
        if (!raw.pendingActivities?.some((a) => a.activityType?.name === 'runSteps' && a.state === STARTED)) return;
        killedPid = await workerPid(config);
        if (killedPid !== null) process.kill(killedPid, 'SIGKILL');
      },
    });
    expect(killedPid).not.toBeNull();
    expect(run.result).toEqual({ status: 'completed', answer: '8' });
    // No cell lost or run twice: the counter and the kernel's execution counts go up by one a cell.
    expect(run.of('CellExecuted').map((c) => [c.status, c.executionCount])).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => ['ok', n]));
    expect(run.of('ModelCalled').map((m) => m.turn)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const { events } = await h.client.workflow.getHandle(run.id).fetchHistory();
    const retried = (events ?? []).map((ev) => ev.activityTaskStartedEventAttributes).filter((a) => (a?.attempt ?? 1) > 1);
    expect(retried.map((a) => a!.lastFailure?.applicationFailureInfo?.type)).toEqual(['WorkerLost']);
  }, 300_000);

  test('a worker killed under a running job takes the job\'s processes with it, and the successor reports the job failed at once', async () => {
    await restartsWithin(3_000);
    const script = {
      root: [py('print(jobs.submit("sleep 4242")["id"])'), 'Waiting for the job.', py('print(jobs.status("job-1")["status"])'), 'The job was lost with its worker.'],
    };
    let killedPid: number | null = null;
    let running: string[] = [];
    const run = await runOnStackWorker(h, script, {
      task: 'run a long job',
      onEvent: async (_n, e) => {
        if (killedPid !== null || e.type !== 'JobStarted') return;
        await until('the job\'s command to run', async () => (running = processesWith('sleep 4242')).length > 0 || undefined);
        killedPid = await workerPid(config);
        if (killedPid !== null) process.kill(killedPid, 'SIGKILL');
      },
    });
    expect(killedPid).not.toBeNull();
    // The end may be logged before the agent's answer (the session then ends with it) or after it (it wakes the session).
    expect(run.result).toMatchObject({ status: 'completed' });
    expect(run.of('JobEnded')).toEqual([expect.objectContaining({ jobId: 'job-1', outcome: 'failed', exitCode: null })]);
    expect(run.of('JobEnded')[0].reason).toContain(`its worker (${workerIdentity(killedPid!)}) died`);
    if (run.of('CellExecuted').length > 1) expect(run.of('CellExecuted')[1].outputs).toBe('failed');
    // Nothing of the job runs on, untracked: its sandbox died with the worker that started it.
    expect(running).not.toEqual([]);
    expect(processesWith('sleep 4242')).toEqual([]);
  }, 300_000);

  test('a worker killed under a research experiment\'s judge: the judge dies with it, and the ledger gets one failed row, nothing counted', async () => {
    await restartsWithin(3_000);
    const ws = join(mkdtempSync(join(tmpdir(), 'recur-sigkill-research-')), 'w');
    initWorkspace({ task, dir: ws, knowledge: 'weights-only' });
    // A candidate whose judge runs its scale-up stage (seconds of CPU): time to kill the worker under it.
    const train = readFileSync(join(ws, 'train.py'), 'utf8');
    const [head, rest] = train.split('# ==== EDITABLE: optimizer config ====\n');
    const candidate = "CONFIG = {'lr': 1.0, 'momentum': 0.8, 'schedule': 'cosine', 'cooldown_frac': 1.0, 'ema': 0.995, 'ema_start_frac': 0.5, 'train_steps': 900}\n";
    const source = `${head}# ==== EDITABLE: optimizer config ====\n${candidate}${rest.slice(rest.indexOf('# ==== END ===='))}`;
    writeFileSync(join(ws, 'train.py'), source);
    // This session's judge runs on the snapshot named by the source's hash: judges of other runs on the machine are not it.
    const snapshot = createHash('sha256').update(source).digest('hex');
    spawnSync('chmod', ['-R', 'a+rwX', ws]);
    const start = researchStart(task, 'weights-only', undefined);
    const script = { root: [py('print(research.submit(idea="tail EMA 0.995")["id"])'), 'Waiting for the judge.', py('print(ledger.query()[-1]["status"])'), 'The judge was lost with its worker.'] };
    const judges = () => readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
      try {
        const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
        return cmd.some((a) => a.endsWith('verify.py')) && cmd.includes('--scale-up') && cmd[cmd.indexOf('--workspace') + 1]?.endsWith(`/${snapshot}`);
      } catch {
        return false;
      }
    });
    let killedPid: number | null = null;
    let judging: string[] = [];
    const run = await runOnStackWorker(h, script, {
      task: 'beat the record',
      prepare: (input) => {
        sessionWorkspaces(h.config).record(input.sessionId, { dir: ws, group: ws, shared: [], knowledge: start.knowledge });
        return { ...input, research: start.spec };
      },
      onEvent: async (_n, e) => {
        if (killedPid !== null || e.type !== 'JobStarted') return;
        await until('the judge to run', async () => (judging = judges()).length > 0 || undefined);
        killedPid = await workerPid(config);
        if (killedPid !== null) process.kill(killedPid, 'SIGKILL');
      },
    });
    expect(killedPid).not.toBeNull();
    expect(run.result).toMatchObject({ status: 'completed' });
    // One end, one row, one verdict: the successor's report of the lost job, with nothing of the run counted.
    expect(run.of('JobEnded')).toEqual([expect.objectContaining({ jobId: 'job-1', outcome: 'failed' })]);
    expect(run.of('ExperimentRecorded')).toEqual([expect.objectContaining({ jobId: 'job-1', kind: 'record', status: 'failed', seeds: [], values: [], mean: null })]);
    expect(run.of('ExperimentRecorded')[0].reason).toContain('nothing of it is counted');
    expect(run.of('RecordRejected')).toHaveLength(1);
    expect(run.of('RecordAccepted')).toEqual([]);
    // The judge runs outside the sandbox; it died with the worker all the same.
    expect(judging).not.toEqual([]);
    expect(judges()).toEqual([]);
  }, 300_000);

  test.each(SEEDS)(`kills at ${KILLS} seeded points (seed %i) change nothing: answer, every cell's output, one of each effect`, async (seed) => {
    expect(baseline.result).toEqual({ status: 'completed', answer: '6|285|3' });
    const total = [...baseline.sessions.values()].reduce((n, events) => n + events.length, 0);
    // Not the first events (nothing to resume yet) nor the last (the run would end before the kill bites).
    const points = killPoints(seed, KILLS, 2, total - 4);
    process.stderr.write(`[chaos] seed ${seed}: ${total} events in the undisturbed run; SIGKILL of the worker after events ${points.join(', ')}\n`);

    const killed: Array<{ at: number; pid: number }> = [];
    let next = 0;
    const disturbed = await runOnStackWorker(h, SCRIPT, {
      ...CHAOS_RUN,
      onEvent: async (n) => {
        if (next >= points.length || n < points[next]) return;
        const pid = await workerPid(config);
        if (pid === null) return; // still restarting from the last kill: take the next event
        process.kill(pid, 'SIGKILL');
        killed.push({ at: n, pid });
        next += 1;
      },
    });
    process.stderr.write(`[chaos] killed ${JSON.stringify(killed)}\n`);
    // A run that ended otherwise prints each session's log, to read against the kills.
    if (JSON.stringify(disturbed.result) !== JSON.stringify(baseline.result)) {
      for (const [id, events] of disturbed.sessions) process.stderr.write(`[chaos] ${id}: ${events.map((e) => `${e.seq}:${e.type}`).join(' ')}\n`);
    }
    const { duplicates, lost } = compareRuns(baseline, disturbed);
    rows.push({
      seed, kills: killed.length, completed: disturbed.result.status === 'completed', duplicates, lost,
      events: [...disturbed.sessions.values()].reduce((n, events) => n + events.length, 0),
    });

    expect(killed.length).toBeGreaterThanOrEqual(Math.min(KILLS, 2));
    expect(disturbed.result).toEqual(baseline.result);
    // Every cell ran once and said the same: a lost or repeated cell changes an output or an execution count.
    expect(cellsOf(disturbed)).toEqual(cellsOf(baseline));
    // One of each effect: sessions started, model calls, cells, children, messages sent and delivered.
    expect({ duplicates, lost }).toEqual({ duplicates: 0, lost: 0 });
    expect(disturbed.of('CellExecuted').every((c) => c.status === 'ok')).toBe(true);
  }, 600_000);
});

/** The table of a chaos run (Markdown) and its rows (JSON) under `dir`. */
function writeReport(dir: string, rows: ChaosRow[]): void {
  const sum = (f: (r: ChaosRow) => number) => rows.reduce((n, r) => n + f(r), 0);
  const lines = [
    `# Worker SIGKILL chaos: ${rows.length} seeds from ${SEED}, ${KILLS} kills asked of each`,
    '',
    '| seed | kills | completed as undisturbed | duplicate events | lost events | events logged |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| ${r.seed} | ${r.kills} | ${r.completed ? 'yes' : 'no'} | ${r.duplicates} | ${r.lost} | ${r.events} |`),
    `| **all** | **${sum((r) => r.kills)}** | **${sum((r) => (r.completed ? 1 : 0))} of ${rows.length}** | **${sum((r) => r.duplicates)}** | **${sum((r) => r.lost)}** | ${sum((r) => r.events)} |`,
    '',
  ];
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'chaos.md'), lines.join('\n'));
  writeFileSync(join(dir, 'chaos.json'), JSON.stringify(rows, null, 2));
}
