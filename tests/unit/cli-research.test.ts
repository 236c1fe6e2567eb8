import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runJudge } from '../../services/research/run-judge';
import { readTask } from '../../services/research/tasks';
import { cliInProcess } from '../helpers/cli-in-process';

const BASELINE_STEPS = 1003;
const VERDICT_KEYS = ['accepted', 'bar', 'clears_bar', 'config_hash', 'frozen_hash', 'mean', 'n', 'pairwise', 'problem', 'promising', 'reason', 'scale_up', 'seeds', 'steps', 'task', 'values', 'workspace'];
const EDITABLE = /# ==== EDITABLE: optimizer config ====\n[\s\S]*?\n# ==== END ====\n/;

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'recur-research-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function workspace(knowledge?: string): Promise<string> {
  const dir = mkdtempSync(join(root, 'ws-'));
  const r = await cliInProcess(['research', 'init', dir, '--task', 'nqm-speedrun', ...(knowledge ? ['--knowledge', knowledge] : [])]);
  expect(r.code).toBe(0);
  return dir;
}

/** A workspace whose editable block is `block` (the lines between the markers). */
async function withBlock(block: string): Promise<string> {
  const dir = await workspace();
  const train = readFileSync(join(dir, 'train.py'), 'utf8');
  writeFileSync(join(dir, 'train.py'), train.replace(EDITABLE, `# ==== EDITABLE: optimizer config ====\n${block}\n# ==== END ====\n`));
  return dir;
}

const baseline = (extra: string, steps: number): string =>
  `CONFIG = {'lr': 1.0, 'momentum': 0.8, 'schedule': 'cosine', 'cooldown_frac': 1.0, ${extra} 'train_steps': ${steps}}`;

interface Verdict {
  accepted: boolean;
  clears_bar: boolean;
  steps: number | null;
  mean: number | null;
  bar: number;
  reason: string;
  n: number;
  seeds: number[];
}

async function judge(dir: string): Promise<{ code: number; verdict: Verdict }> {
  const r = await cliInProcess(['research', 'judge', dir, '--json']);
  expect(r.out).toHaveLength(1);
  return { code: r.code, verdict: JSON.parse(r.out[0]) as Verdict };
}

describe('recur research init', () => {
  it('writes the task files, goal.md stating the tier, no papers on weights-only, only the records out at the start', async () => {
    const dir = await workspace();
    expect(readdirSync(dir).sort()).toEqual(['AGENTS.md', 'goal.md', 'notebook', 'records', 'run.sh', 'train.py', 'verify.py']);
    const goal = readFileSync(join(dir, 'goal.md'), 'utf8');
    expect(goal).toContain('Tier: weights-only.');
    expect(goal).not.toContain('{{knowledge}}');
    const records = readFileSync(join(dir, 'records', 'feed.jsonl'), 'utf8').trim().split('\n');
    expect(records.map((l) => (JSON.parse(l) as { id: string }).id)).toEqual(['r0-baseline']);
    expect(existsSync(join(dir, 'notebook', 'thread.md'))).toBe(true);
  });

  it('copies papers/, the decoys included, on the archive tier', async () => {
    const dir = await workspace('archive');
    const papers = readdirSync(join(dir, 'papers'));
    expect(papers).toEqual(expect.arrayContaining(['lookahead-extra-evals.md', 'lr-floor.md', 'ema-tail-averaging.md']));
    expect(papers.length).toBeGreaterThanOrEqual(6);
    expect(readFileSync(join(dir, 'goal.md'), 'utf8')).toContain('Tier: archive.');
  });

  it('refuses a directory that is not empty and leaves it as it was', async () => {
    const dir = mkdtempSync(join(root, 'busy-'));
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const r = await cliInProcess(['research', 'init', dir, '--task', 'nqm-speedrun']);
    expect(r.code).toBe(2);
    expect(r.message).toContain('is not an empty directory');
    expect(readdirSync(dir)).toEqual(['notes.txt']);
  });

  it('refuses an unknown task or knowledge tier with what exists', async () => {
    const task = await cliInProcess(['research', 'init', join(root, 'new-1'), '--task', 'nope']);
    expect([task.code, task.message]).toEqual([2, expect.stringContaining('shipped tasks: nqm-speedrun')]);
    const tier = await cliInProcess(['research', 'init', join(root, 'new-2'), '--task', 'nqm-speedrun', '--knowledge', 'web']);
    expect([tier.code, tier.message]).toEqual([2, expect.stringContaining('weights-only, archive, full')]);
    expect(existsSync(join(root, 'new-1')) || existsSync(join(root, 'new-2'))).toBe(false);
  });
});

describe('recur research judge', () => {
  it('accepts the shipped baseline at its T*, clear of the bar by 1e-4, with the verdict fields', async () => {
    const dir = await workspace();
    const r = await cliInProcess(['research', 'judge', dir, '--json']);
    expect(r.code).toBe(0);
    const v = JSON.parse(r.out[0]) as Verdict & Record<string, unknown>;
    expect(Object.keys(v).sort()).toEqual(VERDICT_KEYS);
    expect([v.accepted, v.clears_bar, v.steps, v.n]).toEqual([true, true, BASELINE_STEPS, 8]);
    expect(v.seeds).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((i) => 0xc0ffee + i));
    expect(v.bar - (v.mean as number)).toBeGreaterThanOrEqual(1e-4);
  });

  it('rejects the baseline one step and 13 steps short of T*, each clear of the bar by 1e-4', async () => {
    for (const steps of [BASELINE_STEPS - 1, BASELINE_STEPS - 13]) {
      const { code, verdict } = await judge(await withBlock(baseline('', steps)));
      expect([code, verdict.accepted, verdict.clears_bar, verdict.steps]).toEqual([1, false, false, steps]);
      expect((verdict.mean as number) - verdict.bar).toBeGreaterThanOrEqual(1e-4);
    }
  });

  it('prints a verdict for people without --json', async () => {
    const r = await cliInProcess(['research', 'judge', await workspace()]);
    expect(r.code).toBe(0);
    expect(r.out[0]).toMatch(/^accepted: mean 3\.275\d\d < bar 3\.27563 over 8 seeds$/);
    expect(r.out[1]).toContain(`steps ${BASELINE_STEPS}`);
  });

  it('screens with --trials N: a verdict that says promising or not, never accepted', async () => {
    const base = await cliInProcess(['research', 'judge', await workspace(), '--trials', '1']);
    expect([base.code, base.out[0]]).toEqual([1, 'not promising: screen of 1 seed, never a record: mean 3.27912 does not clear bar 3.26764']);
    const ema = await cliInProcess(['research', 'judge', await withBlock(baseline("'ema': 0.99, 'ema_start_frac': 0.5,", 1003)), '--trials', '1']);
    expect([ema.code, ema.out[0]]).toEqual([1, expect.stringMatching(/^promising: screen of 1 seed, never a record: mean 3\.\d{5} < bar 3\.26764, promising$/)]);
    expect(ema.out[1]).toMatch(/over 1 seeds, bar 3\.26764/);
  });

  it('exits 2, running nothing, on --trials outside 1..8, --scale-up on a screen or the large problem, and judge flags on init', async () => {
    const dir = await workspace();
    const cases: [string[], string][] = [
      [['research', 'judge', dir, '--trials', '9'], '--trials must be an integer from 1 to 8, got "9"'],
      [['research', 'judge', dir, '--trials', '0'], '--trials must be an integer from 1 to 8'],
      [['research', 'judge', dir, '--trials', 'all'], '--trials must be an integer from 1 to 8'],
      [['research', 'judge', dir, '--trials', '4', '--scale-up'], '--scale-up judges a record candidate'],
      [['research', 'judge', dir, '--problem', 'large', '--scale-up'], '--scale-up judges a record candidate'],
      [['research', 'init', join(root, 'new-3'), '--task', 'nqm-speedrun', '--trials', '1'], '--trials is not a flag of research init'],
      [['research', 'init', join(root, 'new-3'), '--task', 'nqm-speedrun', '--scale-up'], '--scale-up is not a flag of research init'],
    ];
    for (const [argv, message] of cases) {
      const r = await cliInProcess(argv);
      expect([r.code, r.out, r.message]).toEqual([2, [], expect.stringContaining(message)]);
    }
  });

  it('passes the shipped baseline through --scale-up: its large T* is the baseline\'s own, ratio 1 on both problems', async () => {
    const r = await cliInProcess(['research', 'judge', await workspace(), '--scale-up']);
    expect(r.code).toBe(0);
    expect(r.out[0]).toMatch(/^accepted: mean 3\.27519 < bar 3\.27563 over 8 seeds; scale-up: large T\* 4503\/4503 = 1\.0000 <= small 1003\/1003 = 1\.0000 \+ 0\.05$/);
    expect(r.out[2]).toBe("scale-up passed: large T* 4503 (1.0000 of the baseline's 4503); small 1003 (1.0000 of the baseline's 1003)");
  }, 60_000);

  it('rejects the illegal lever grad_evals_per_step even where it clears the bar', async () => {
    const { code, verdict } = await judge(await withBlock(baseline("'grad_evals_per_step': 2,", 700)));
    expect([code, verdict.accepted, verdict.clears_bar]).toEqual([1, false, true]);
    expect(verdict.reason).toContain('illegal lever: grad_evals_per_step=2');
  });

  it('rejects a workspace whose frozen harness was edited, without running it', async () => {
    const dir = await workspace();
    const train = readFileSync(join(dir, 'train.py'), 'utf8');
    expect(train).toContain('GRAD_NOISE = 3.0\n');
    writeFileSync(join(dir, 'train.py'), train.replace('GRAD_NOISE = 3.0\n', 'GRAD_NOISE = 0.5\n'));
    const { code, verdict } = await judge(dir);
    expect([code, verdict.accepted, verdict.mean]).toEqual([1, false, null]);
    expect(verdict.reason).toContain('frozen regions of train.py differ');
  });

  it('rejects a malformed editable block with a reason, and never executes it', async () => {
    const marker = join(root, 'executed');
    const cases: [string, string][] = [
      ['CONFIG = dict(lr=1.0, train_steps=500)', 'one assignment "CONFIG = {...}" of a dict literal'],
      [`CONFIG = {'lr': __import__('os').system('touch ${marker}'), 'train_steps': 500}`, 'CONFIG is not a plain literal'],
      [`${baseline('', 1003)}\nimport os`, 'one assignment'],
      ["CONFIG = {'lr': 1.0,", 'does not parse'],
      [baseline("'lookahead': 2,", 1003), 'unknown knob(s): lookahead'],
      [baseline("'init_scale': 3.0,", 1003), 'init_scale=3.0 is outside [0.5, 2]'],
    ];
    for (const [block, reason] of cases) {
      const { code, verdict } = await judge(await withBlock(block));
      expect([code, verdict.accepted]).toEqual([1, false]);
      expect(verdict.reason).toContain(reason);
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('rejects a train.py that lost its END marker', async () => {
    const dir = await workspace();
    writeFileSync(join(dir, 'train.py'), readFileSync(join(dir, 'train.py'), 'utf8').replace('# ==== END ====\n', ''));
    const { verdict } = await judge(dir);
    expect(verdict.reason).toContain('exactly one editable block');
  });

  it('reports a diverging config as rejected with no mean', async () => {
    const { code, verdict } = await judge(await withBlock("CONFIG = {'lr': 5.0, 'train_steps': 300}"));
    expect([code, verdict.mean, verdict.reason]).toEqual([1, null, 'diverged']);
  });

  it('fails (not a verdict) when the judge cannot run or prints no verdict', async () => {
    const dir = await workspace();
    const task = readTask('nqm-speedrun')!;
    await expect(runJudge({ task, dir, problem: 'small', python: join(root, 'no-python3') })).rejects.toThrow('the nqm-speedrun judge failed');
    const liar = join(root, 'liar.sh');
    writeFileSync(liar, '#!/bin/sh\necho accepted\n', { mode: 0o755 });
    await expect(runJudge({ task, dir, problem: 'small', python: liar })).rejects.toThrow('printed no verdict');
  });

  it('exits 2 on a directory that does not exist or a bad subcommand', async () => {
    const missing = await cliInProcess(['research', 'judge', join(root, 'absent')]);
    expect([missing.code, missing.message]).toEqual([2, expect.stringContaining('is not a directory')]);
    mkdirSync(join(root, 'plain'));
    expect((await cliInProcess(['research', 'grade', join(root, 'plain')])).code).toBe(2);
    const misplaced = await cliInProcess(['research', 'judge', join(root, 'plain'), '--knowledge', 'archive']);
    expect([misplaced.code, misplaced.message]).toEqual([2, expect.stringContaining('--knowledge is not a flag of research judge')]);
    // Checked before the log is read: no stack is needed to be told.
    const out = await cliInProcess(['research', 'ledger', 'some-session', '--out', root]);
    expect([out.code, out.message]).toEqual([2, expect.stringContaining('--out is a flag of research report only')]);
    const bare = await cliInProcess(['research', 'report']);
    expect([bare.code, bare.message]).toEqual([2, expect.stringContaining('recur research report SESSION-ID [--out DIR|-] [--json]')]);
  });
});

describe('the workspace tools', () => {
  it("run.sh logs the source, then each seed's step lines every 10 %; verify.py passes the baseline's 8-seed log", async () => {
    const dir = await workspace();
    execFileSync('bash', ['run.sh', '8'], { cwd: dir, encoding: 'utf8' });
    const [log] = readdirSync(join(dir, 'logs'));
    const text = readFileSync(join(dir, 'logs', log), 'utf8');
    expect(text.startsWith(readFileSync(join(dir, 'train.py'), 'utf8'))).toBe(true);
    const tail = text.slice(readFileSync(join(dir, 'train.py'), 'utf8').length).trim().split('\n');
    expect(tail).toHaveLength(8 * 11);
    expect(tail.slice(0, 3)).toEqual([`seed:${0xc0ffee}`, `step:100/${BASELINE_STEPS} val_loss:21.92734`, expect.stringMatching(/^step:200\/1003 val_loss:\d+\.\d{5}$/)]);
    const pass = spawnSync('python3', ['verify.py', join('logs', log)], { cwd: dir, encoding: 'utf8' });
    expect([pass.status, pass.stdout.trim()]).toEqual([0, expect.stringMatching(/^PASS: mean 3\.275\d\d vs bar 3\.27563$/)]);
    writeFileSync(join(dir, 'logs', log), text.replace('GRAD_NOISE = 3.0\n', 'GRAD_NOISE = 0.5\n'));
    const forged = spawnSync('python3', ['verify.py', join('logs', log)], { cwd: dir, encoding: 'utf8' });
    expect([forged.status, forged.stdout.trim()]).toEqual([1, 'the logged source is not the shipped harness']);
    writeFileSync(join(dir, 'logs', log), text.replace(`step:${BASELINE_STEPS}/${BASELINE_STEPS} `, 'step:990/990 '));
    const mixed = spawnSync('python3', ['verify.py', join('logs', log)], { cwd: dir, encoding: 'utf8' });
    expect([mixed.status, mixed.stdout.trim()]).toEqual([1, expect.stringContaining('at one train_steps')]);
  });
});
