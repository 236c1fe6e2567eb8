import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openBlobStore } from '../../activities/open-blob-store';
import { initWorkspace } from '../../services/research/init-workspace';
import { researchStart } from '../../services/research/research-spec';
import { readTask } from '../../services/research/tasks';
import { sessionWorkspaces } from '../../services/sandbox';
import { cliInProcess } from '../helpers/cli-in-process';
import { SessionHarness, py } from '../helpers/session-harness';

const task = readTask('nqm-speedrun')!;
const BASELINE = { lr: 1.0, momentum: 0.8, schedule: 'cosine', cooldown_frac: 1.0 };
/** The shipped train.py with `config` as its CONFIG (Python, in the kernel): what an agent's edit leaves. */
const SET_CONFIG = `
import json, os
def set_config(config, file="train.py", frozen=lambda s: s):
    src = open("train.py").read()
    start = src.index("# ==== EDITABLE: optimizer config ====")
    end = src.index("# ==== END ====")
    os.makedirs(os.path.dirname(file) or ".", exist_ok=True)
    open(file, "w").write(frozen(src[:start]) + "# ==== EDITABLE: optimizer config ====\\nCONFIG = " + repr(config) + "\\n" + src[end:])
`;
/** Waits in the cell for every experiment to have its row: a test's way to see the ends in one cell, not an agent's. */
const AWAIT_ROWS = `
import time
while any(r["status"] == "queued" for r in ledger.query()):
    time.sleep(0.2)
`;
const cfg = (c: object) => JSON.stringify(c).replace(/true/g, 'True');

describe('a research session: experiments judged by the host, a ledger only the host writes (real stack; scripted model)', () => {
  const h = new SessionHarness();
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());
  /** The first test's session, which the report reads again: no second session to wait for. */
  let researchId: string | undefined;

  it('screens, rejects an illegal lever, a tampered harness and a sub-σ gain, accepts a real one, and keeps the rows in the log', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'recur-research-'));
    initWorkspace({ task, dir: join(workspace, 'w'), knowledge: 'weights-only' });
    const ws = join(workspace, 'w');
    // The kernel runs as a uid of its own.
    expect(spawnSync('chmod', ['-R', 'a+rwX', workspace]).status).toBe(0);
    const start = researchStart(task, 'weights-only', undefined);
    const input = {
      ...h.input({
        root: [
          // A screen takes a tenth of a second: waited for here, it ends in the cell (an answer given
          // while it ran would idle until its end, one given after it would end the session).
          py(`${SET_CONFIG}
t = research.trial(n=1, idea="baseline screen")
print(t["id"], t["kind"], t["status"])
${AWAIT_ROWS}`),
          py(`
set_config(${cfg({ ...BASELINE, grad_evals_per_step: 2, train_steps: 600 })}, "variants/illegal.py")
set_config(${cfg({ ...BASELINE, train_steps: 900 })}, "variants/tamper.py", frozen=lambda s: s.replace("SEED_BASE = 0xC0FFEE", "SEED_BASE = 0xC0FFEF"))
set_config(${cfg({ ...BASELINE, nesterov: true, train_steps: 992 })}, "variants/subsigma.py")
for idea, file in (("two gradients a step", "variants/illegal.py"), ("other seeds", "variants/tamper.py"), ("nesterov", "variants/subsigma.py")):
    print(research.submit(idea=idea, file=file, parent="job-1")["id"])
${AWAIT_ROWS}
set_config(${cfg({ ...BASELINE, ema: 0.995, ema_start_frac: 0.5, train_steps: 900 })})
e = research.submit(idea="tail EMA 0.995 from half way", parent="job-1")
# The judge runs on train.py as it was at submit: this edit comes too late to count.
set_config(${cfg({ ...BASELINE, train_steps: 500 })})
${AWAIT_ROWS}
for r in ledger.query():
    print(r["id"], r["kind"], r["status"], r["steps"], len(r["values"]), r["reason"][:60])
print("record", research.record())
print(ledger.annotate(e, "EMA scales: stack it next")["notes"])
for bad in (lambda: research.trial(n=9), lambda: research.trial(file="../outside.py"), lambda: research.submit(file="/etc/passwd"),
            lambda: ledger.annotate("job-99", "x"), lambda: research.submit(idea="x" * 2001)):
    try:
        bad()
    except Exception as err:
        print(type(err).__name__, err)`),
          'Done.',
        ],
      }, 'beat the nqm-speedrun record'),
      research: start.spec,
    };
    sessionWorkspaces(h.config).record(input.sessionId, { dir: ws, group: ws, shared: [], knowledge: start.knowledge });
    const run = await h.runInput(input);
    researchId = run.id;
    expect(run.result).toEqual({ status: 'completed', answer: 'Done.' });
    expect(run.of('SessionStarted')[0].research).toEqual({ task: 'nqm-speedrun', knowledge: 'weights-only', recordId: 'r0-baseline', recordSteps: 1003, recordMean: expect.any(Number), recordN: 8 });

    const rows = Object.fromEntries(run.of('ExperimentRecorded').map((r) => [r.jobId, r]));
    expect(run.of('ExperimentRecorded')).toHaveLength(5);
    // The screen: the host ran the first seed; the baseline at one seed is not promising.
    expect(rows['job-1']).toMatchObject({ kind: 'trial', status: 'measured', steps: 1003, seeds: [0xc0ffee], promising: false, file: 'train.py' });
    const rejected = Object.fromEntries(run.of('RecordRejected').map((r) => [r.jobId, r]));
    expect(rejected['job-2']).toMatchObject({ clearsBar: true, reason: expect.stringContaining('illegal lever: grad_evals_per_step=2'), previousId: 'r0-baseline' });
    expect(rejected['job-3'].reason).toContain('frozen regions of train.py differ');
    expect(rejected['job-4']).toMatchObject({ clearsBar: true, reason: expect.stringContaining('pairwise score'), pairwiseScore: expect.any(Number) });
    expect(rejected['job-4'].pairwiseScore!).toBeLessThan(0.01236 - 1e-4);
    expect(rows['job-2'].status).toBe('rejected');
    expect(rows['job-5']).toMatchObject({ kind: 'record', status: 'accepted', steps: 900, parent: 'job-1', idea: 'tail EMA 0.995 from half way' });
    expect(rows['job-5'].values).toHaveLength(8);
    const [accepted] = run.of('RecordAccepted');
    expect(accepted).toMatchObject({ jobId: 'job-5', steps: 900, n: 8, previousId: 'r0-baseline', previousSteps: 1003, scaleUp: expect.objectContaining({ passed: true, baselineLargeSteps: 4503 }) });
    expect(accepted.pairwiseScore).toBeGreaterThan(0.01236);
    expect(run.of('ExperimentAnnotated')).toEqual([expect.objectContaining({ jobId: 'job-5', note: 'EMA scales: stack it next', by: run.id })]);

    // Each row is logged in the same append as its job's end: one row per job, right after it.
    const log = run.sessions.get(run.id)!;
    for (const row of run.of('ExperimentRecorded')) {
      const at = log.findIndex((e) => e.event === row);
      expect(log[at - 1].event).toMatchObject({ type: 'JobEnded', jobId: row.jobId, outcome: 'finished' });
    }
    // What was judged is the file as it was at submit, kept whole in the blob store.
    const judged = await openBlobStore(h.config).get(rows['job-5'].source.sha256);
    expect(createHash('sha256').update(judged).digest('hex')).toBe(rows['job-5'].source.sha256);
    expect(judged.toString('utf8')).toContain("'ema': 0.995");
    expect(readFileSync(join(ws, 'train.py'), 'utf8')).toContain("'train_steps': 500");

    const out = run.of('CellExecuted')[1].outputs;
    expect(out).toContain("record {'id': 'job-5', 'steps': 900");
    expect(out).toContain("['EMA scales: stack it next']");
    expect(out).toContain('n must be an integer from 1 to 8');
    expect(out).toContain('"../outside.py" is no regular file inside your workspace');
    expect(out).toContain('"/etc/passwd" is no regular file inside your workspace');
    expect(out).toContain('no experiment "job-99"');
    expect(out).toContain('LimitExceededError');

    // The table, from the log alone.
    const cli = await cliInProcess(['research', 'ledger', run.id, '--json']);
    expect(cli.code).toBe(0);
    const table = JSON.parse(cli.out[0]) as { rows: { id: string; status: string; trials: unknown[]; by: string; notes: { note: string; by: string }[] }[]; records: { id: string }[] };
    // Rows come in the order the jobs ended; jobs 2 to 4 were submitted together and run side by side (a slot each), so they may end in any order.
    const byId = [...table.rows].sort((a, b) => a.id.localeCompare(b.id));
    expect(byId.map((r) => [r.id, r.status, r.trials.length])).toEqual([['job-1', 'measured', 1], ['job-2', 'rejected', 8], ['job-3', 'rejected', 0], ['job-4', 'rejected', 8], ['job-5', 'accepted', 8]]);
    expect(table.rows.map((r) => r.id)[0]).toBe('job-1');
    expect(table.rows.map((r) => r.id)[4]).toBe('job-5');
    expect(table.records.map((r) => r.id)).toEqual(['r0-baseline', 'job-5']);
    expect(table.rows[4].notes).toEqual([{ note: 'EMA scales: stack it next', by: run.id }]);
    expect(table.rows.map((r) => r.by)).toEqual(Array(5).fill(run.id));
  }, 240_000);

  it('reports the session from its log: experiments, the accepted record, the idle fraction, and record.png', async () => {
    expect(researchId).toBeDefined();
    const out = mkdtempSync(join(tmpdir(), 'recur-report-'));
    const cli = await cliInProcess(['research', 'report', researchId!, '--json', '--out', out]);
    expect(cli.code).toBe(0);
    const report = JSON.parse(cli.out[0]) as { experiments: number; accepted: number; recordNow: { id: string }; spent: { calls: number }; time: { idleFraction: number }; chart: string };
    expect(report).toMatchObject({ experiments: 5, accepted: 1, recordNow: { id: 'job-5' }, chart: join(out, 'record.png') });
    expect(report.spent.calls).toBe(3);
    expect(report.time.idleFraction).toBeGreaterThan(0);
    expect(report.time.idleFraction).toBeLessThan(1);
    expect(readFileSync(report.chart).subarray(1, 4).toString()).toBe('PNG');
  });

  it('confines a tier, kernel and jobs alike: the host\'s archive read-only over papers/, or papers/ hidden on a tier without it', async () => {
    const seen: Record<string, string> = {};
    for (const tier of ['archive', 'weights-only']) {
      // A workspace made for the archive tier: its own copy of the papers is what weights-only must hide.
      const ws = join(mkdtempSync(join(tmpdir(), 'recur-tier-')), 'w');
      initWorkspace({ task, dir: ws, knowledge: 'archive' });
      expect(spawnSync('chmod', ['-R', 'a+rwX', ws]).status).toBe(0);
      const start = researchStart(task, tier, undefined);
      const input = {
        ...h.input({
          root: [py(`
import os, time
print("kernel sees", sorted(os.listdir("papers")))
try:
    open("papers/mine.md", "w").write("my notes")
    print("kernel wrote")
except OSError as e:
    print("kernel refused", e.errno)
j = jobs.submit("ls papers | wc -l; (echo x > papers/job.md) 2>/dev/null && echo job-wrote || echo job-refused")
while jobs.status(j)["status"] in ("queued", "running"):
    time.sleep(0.2)
print(jobs.logs(j))`), 'Done.'],
        }, `read the papers (${tier})`),
        research: start.spec,
      };
      sessionWorkspaces(h.config).record(input.sessionId, { dir: ws, group: ws, shared: [], knowledge: start.knowledge });
      const run = await h.runInput(input);
      expect(run.result).toEqual({ status: 'completed', answer: 'Done.' });
      expect(run.of('SessionStarted')[0].research?.knowledge).toBe(tier);
      seen[tier] = run.of('CellExecuted')[0].outputs;
      // The host's copy is untouched either way.
      expect(readdirSync(join(ws, 'papers')).sort()).toEqual(readdirSync(join(task.dir, 'papers')).sort());
    }
    const papers = readdirSync(join(task.dir, 'papers')).sort();
    expect(seen.archive).toContain(`kernel sees ${JSON.stringify(papers).replace(/"/g, "'").replace(/,/g, ', ')}`);
    expect(seen.archive).toMatch(/kernel refused 30\n/);
    expect(seen.archive).toContain(`${papers.length}\njob-refused`);
    expect(seen['weights-only']).toContain('kernel sees []');
    expect(seen['weights-only']).toMatch(/kernel refused 30\n/);
    expect(seen['weights-only']).toContain('0\njob-refused');
  });

  it('refuses research calls in a session started without a research task, logging nothing', async () => {
    const run = await h.run({
      root: [py(`
try:
    research.trial()
except Exception as err:
    print(type(err).__name__, err)`), 'Done.'],
    }, 'no research here');
    expect(run.of('CellExecuted')[0].outputs).toContain('ScopeError research.trial: this session has no research task');
    expect(run.types().filter((t) => t.startsWith('Job') || t.startsWith('Experiment'))).toEqual([]);
    const plain = await cliInProcess(['research', 'report', run.id, '--out', '-']);
    expect([plain.code, plain.message]).toEqual([1, `${run.id} is no research session (it was not started with --research)`]);
    const absent = await cliInProcess(['research', 'report', 'never-logged', '--out', '-']);
    expect([absent.code, absent.message]).toEqual([1, expect.stringContaining('no session never-logged logged on')]);
  });
});
