import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kafkaClient } from '../../config/connections';
import { openBlobStore } from '../../activities/open-blob-store';
import { readSessionLog } from '../../services/projector';
import { initWorkspace } from '../../services/research/init-workspace';
import { researchStart } from '../../services/research/research-spec';
import { readTask } from '../../services/research/tasks';
import { sessionWorkspaces } from '../../services/sandbox';
import { cliInProcess } from '../helpers/cli-in-process';
import { SessionHarness, py, type SessionRun } from '../helpers/session-harness';
import { until } from '../helpers/poll-tree-log';
import { getStatusQuery } from '../../workflows/messages';

const task = readTask('nqm-speedrun')!;
/** A tree budget no run here comes near: there to be counted against, not to stop anything. */
const TREE_TOKENS = 5_000_000;
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });

/** A research workspace that is a git repository, so a generator can have a worktree of its own. */
function researchRepo(): string {
  const ws = join(mkdtempSync(join(tmpdir(), 'recur-roles-')), 'w');
  initWorkspace({ task, dir: ws, knowledge: 'weights-only' });
  git(ws, 'init', '-q', '-b', 'main');
  git(ws, 'add', '-A');
  git(ws, 'commit', '-qm', 'the task as shipped');
  // The kernels run as uids of their own.
  expect(spawnSync('chmod', ['-R', 'a+rwX', join(ws, '..')]).status).toBe(0);
  return ws;
}

const tokens = (run: SessionRun, sessionId: string) => run.of('ModelCalled', sessionId).reduce((n, c) => n + c.tokensIn + c.tokensOut, 0);

describe('a research tree\'s roles: generators, an executor and a judge as sub-agent specs, whose research goes into the root\'s ledger (real stack; scripted models)', () => {
  const h = new SessionHarness();
  beforeAll(() => h.start(), 120_000);
  afterAll(() => h.stop());

  it('seeds the task\'s roles into the tree\'s harness; a generator on its own model screens its worktree into the root\'s ledger, a judge annotates it, and the tree\'s budget and report count both', async () => {
    const ws = researchRepo();
    // The generator's model is a script of its own, as --generators names one.
    const generator = h.input({
      gen1: [py(`
src = open("train.py").read()
start = src.index("# ==== EDITABLE: optimizer config ====")
end = src.index("# ==== END ====")
config = {"lr": 1.0, "momentum": 0.8, "schedule": "cosine", "cooldown_frac": 1.0, "ema": 0.995, "ema_start_frac": 0.5, "train_steps": 900}
open("train.py", "w").write(src[:start] + "# ==== EDITABLE: optimizer config ====\\nCONFIG = " + repr(config) + "\\n" + src[end:])
import os
row = research.trial(n=1, idea="tail EMA from half way")
print("QUEUED", os.getcwd(), row["id"], row["status"])`),
      // It answers while the screen runs: the root's message with the verdict wakes it.
      'screening job-2',
      py(`
row = [r for r in ledger.query() if r["id"] == "job-2"][0]
print("GEN", row["id"], row["status"], row["steps"], row["by"])`),
      'job-2: tail EMA screened at 900 steps'],
    }, 'the generator\'s model');
    const start = researchStart(task, 'weights-only', undefined, [generator.model]);
    const root = h.input({
      root: [
        py(`
blocker = jobs.submit("while [ ! -e release ]; do sleep 0.05; done", cpus=2)
for s in sorted(harness.subagents.list(), key=lambda s: s["name"]):
    print("SPEC", s["name"], s["value"]["model"], s["value"]["maxTurns"])
g = rlm("screen one idea of your own", spec="generator_1", name="gen1", workspace="worktree")
print("ANSWER", g.result())`),
        py(`
j = rlm("check job-2 against goal.md", spec="judge", name="judge", budget_tokens=${TREE_TOKENS})
print("JUDGE", j.result())
for r in ledger.query():
    print("ROW", r["id"], r["kind"], r["status"], r["by"], r["notes"])`),
        'Done.',
      ],
      judge: [py(`
row = ledger.annotate("job-2", "rule check: pass, only CONFIG changed")
final(f"{row['id']} notes {row['notes']}")`)],
    }, 'beat the nqm-speedrun record with your roles', { maxTokens: TREE_TOKENS });
    // The roles are in the root's very first prompt: its first call fails unless they are.
    const script = root.model.slice('scripted:'.length);
    writeFileSync(script, JSON.stringify({ ...JSON.parse(readFileSync(script, 'utf8')), expectSystem: { root: [['Sub-agent specs', '- generator_1', '- executor', '- judge']] } }));
    sessionWorkspaces(h.config).record(root.sessionId, { dir: ws, group: ws, shared: [], knowledge: start.knowledge });
    // The root's job-1 holds the whole pool (RECUR_JOB_CPUS=2) until the generator has answered
    // and waits: its screen, queued behind it, ends only then, so its verdict must wake it.
    const gen = `${root.sessionId}/gen1`;
    const released = (async () => {
      try {
        await until('the generator idling after its answer', () => h.client.workflow.getHandle(gen).query(getStatusQuery)
          .then((st) => (st.phase === 'idle' ? true : undefined), () => undefined));
      } finally {
        writeFileSync(join(ws, 'release'), '');
      }
    })();
    const run = await h.runInput({ ...root, workspace: ws, research: start.spec });
    await released;
    expect(run.result).toEqual({ status: 'completed', answer: 'Done.' });
    const id = run.id;

    // The roles, logged as the harness logs every edit: the task is their source, the root's start their trigger.
    const scope = await readSessionLog({ kafka: kafkaClient(h.config, 'reader', 'test-roles'), topic: h.config.kafka.topic, sessionId: `harness:${id}`, descendants: false });
    const edits = scope.events.flatMap((e) => (e.event.type === 'HarnessEdited' ? [e.event] : []));
    expect(edits.map((e) => [e.action, e.kind, e.name, e.result, e.source, e.requestedBy])).toEqual([
      ['create', 'subagent', 'generator_1', 'applied', 'task:nqm-speedrun', id],
      ['create', 'subagent', 'executor', 'applied', 'task:nqm-speedrun', id],
      ['create', 'subagent', 'judge', 'applied', 'task:nqm-speedrun', id],
    ]);
    expect(edits[0].trigger.eventIds).toEqual([`${id}/0`]);
    expect(JSON.parse(edits[0].after!)).toMatchObject({ model: generator.model, maxTurns: 30, instructions: expect.stringContaining('research.trial') });
    const out = run.of('CellExecuted').map((c) => c.outputs);
    expect(out[0]).toContain(`SPEC executor None 30\nSPEC generator_1 ${generator.model} 30\nSPEC judge None 10\n`);
    expect(run.of('SubagentSpawned').map((s) => [s.name, s.spec, s.model])).toEqual([['gen1', 'generator_1', generator.model], ['judge', 'judge', root.model]]);

    // The generator's screen is a row of the root's ledger, asked by the generator, judged on its worktree's train.py.
    const [queued, screened] = run.of('CellExecuted', gen).map((c) => c.outputs);
    expect(queued).toContain(`QUEUED ${join(h.config.home, 'worktrees')}/`);
    expect(queued).toContain(' job-2 queued');
    // Woken by the root's message, not by polling: the verdict is the host's, as the root's prompt shows it.
    const told = run.of('MessageDelivered', gen).filter((m) => m.from === id);
    expect(told).toEqual([expect.objectContaining({ messageId: `${id}#job-2`, via: 'prompt', text: expect.stringContaining(`[experiment job-2 (trial, asked by ${gen}) measured: steps 900`) })]);
    expect(screened).toContain(`GEN job-2 measured 900 ${gen}`);
    expect(out[0]).toContain('ANSWER job-2: tail EMA screened at 900 steps');
    const [row] = run.of('ExperimentRecorded');
    expect(row).toMatchObject({ jobId: 'job-2', kind: 'trial', status: 'measured', steps: 900, by: gen, idea: 'tail EMA from half way' });
    expect((await openBlobStore(h.config).get(row.source.sha256)).toString('utf8')).toContain("'ema': 0.995");
    expect(readFileSync(join(ws, 'train.py'), 'utf8')).not.toContain("'ema': 0.995");
    // The job and its end are the root's: the generator's log has none.
    expect(run.of('JobQueued').map((j) => [j.jobId, j.command.split(':')[0]])).toEqual([['job-1', 'while [ ! -e release ]; do sleep 0.05; done'], ['job-2', 'research trial']]);
    expect(run.of('JobEnded').map((j) => [j.jobId, j.outcome])).toEqual([['job-1', 'finished'], ['job-2', 'finished']]);
    expect(run.types(gen).filter((t) => t.startsWith('Job') || t.startsWith('Experiment'))).toEqual([]);

    // The judge writes a note on the row and decides nothing.
    expect(run.of('ExperimentAnnotated')).toEqual([{ type: 'ExperimentAnnotated', jobId: 'job-2', note: 'rule check: pass, only CONFIG changed', by: `${id}/judge` }]);
    expect(run.types().filter((t) => t.startsWith('Record'))).toEqual([]);
    expect(out[1]).toContain(`ROW job-2 trial measured ${gen} ['rule check: pass, only CONFIG changed']`);

    // The tree budget counted the generator: what remained for the judge's slice is less than the
    // root's own spend leaves. The generator asked the root before its answer, so its first call is in.
    const [slice] = run.of('BudgetSet', `${id}/judge`);
    expect(slice).toMatchObject({ scope: 'slice', askedTokens: TREE_TOKENS, note: expect.stringContaining('capped') });
    const spentAtGrant = TREE_TOKENS - slice.tokens!;
    const [genFirst] = run.of('ModelCalled', gen);
    const rootBefore = run.of('ModelCalled').slice(0, 2).reduce((n, c) => n + c.tokensIn + c.tokensOut, 0);
    expect(spentAtGrant).toBeGreaterThanOrEqual(rootBefore + genFirst.tokensIn + genFirst.tokensOut);
    expect(spentAtGrant).toBeLessThanOrEqual(rootBefore + tokens(run, gen));

    // The report's tokens and cost are the tree's: the root's and both roles'.
    const cli = await cliInProcess(['research', 'report', id, '--json', '--out', '-']);
    expect(cli.code).toBe(0);
    const report = JSON.parse(cli.out[0]) as { experiments: number; spent: { tokensIn: number; tokensOut: number; costUsd: number; calls: number } };
    const sessions = [id, gen, `${id}/judge`];
    const all = sessions.flatMap((s) => run.of('ModelCalled', s));
    expect(run.of('ModelCalled', gen)).toHaveLength(4);
    expect(run.of('ModelCalled', `${id}/judge`)).toHaveLength(1);
    expect(report.experiments).toBe(1);
    expect(report.spent).toMatchObject({
      calls: all.length, tokensIn: all.reduce((n, c) => n + c.tokensIn, 0), tokensOut: all.reduce((n, c) => n + c.tokensOut, 0), costUsd: all.reduce((n, c) => n + c.costUsd, 0),
    });
    expect(report.spent.tokensIn + report.spent.tokensOut).toBeGreaterThan(tokens(run, id));
    const table = await cliInProcess(['research', 'ledger', id]);
    expect(table.out.join('\n')).toMatch(/job-2 +trial +measured +900 .* gen1 +tail EMA from half way/);
    expect(table.out.join('\n')).toContain('  note (judge): rule check: pass, only CONFIG changed');
  }, 240_000);

  it('refuses a sub-agent\'s research calls in a tree with no research task, as the root\'s, and seeds no roles', async () => {
    const run = await h.run({
      root: [py('print("KID", rlm("try the ledger", name="kid").result())'), 'Done.'],
      kid: [py(`
for call in (lambda: research.trial(), lambda: ledger.annotate("job-1", "x")):
    try:
        call()
    except Exception as err:
        print(type(err).__name__, err)
final("refused")`)],
    }, 'no research here');
    expect(run.result).toEqual({ status: 'completed', answer: 'Done.' });
    const out = run.of('CellExecuted', `${run.id}/kid`)[0].outputs;
    expect(out).toContain('ScopeError research.trial: this session has no research task');
    expect(out).toContain('ScopeError ledger.annotate: this session has no research task');
    for (const s of [run.id, `${run.id}/kid`]) expect(run.types(s).filter((t) => t.startsWith('Job') || t.startsWith('Experiment'))).toEqual([]);
    const scope = await readSessionLog({ kafka: kafkaClient(h.config, 'reader', 'test-roles'), topic: h.config.kafka.topic, sessionId: `harness:${run.id}`, descendants: false });
    expect(scope.events).toEqual([]);
  });
});
