import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { judgeArgv, runJudge, type JudgeArgs } from '../../services/research/run-judge';
import { readTask } from '../../services/research/tasks';
import type { JudgeOutput } from '../../workflows/research/judge-output';

// verify.py's screens, records, pairwise rule and scale-up stage, run as the host runs them (the
// argv judgeArgv builds, from the task dir). Every verdict checked here is at least 1e-4 from the
// bar or threshold it is checked against: the seed noise moves a mean by about 1e-3 from one step
// count to the next, so a closer one would flip on any change to the noise hashing.

const task = readTask('nqm-speedrun')!;
const SHIPPED = readFileSync(join(task.dir, 'train.py'), 'utf8');
const EDITABLE = /(# ==== EDITABLE: optimizer config ====\n)[\s\S]*?\n(# ==== END ====\n)/;
const BASELINE = "'lr': 1.0, 'momentum': 0.8, 'schedule': 'cosine', 'cooldown_frac': 1.0,";
const TAIL_EMA = `${BASELINE} 'ema': 0.99, 'ema_start_frac': 0.5,`;
const NESTEROV = `${BASELINE} 'nesterov': True,`;
/** The baseline record as the host's ledger holds it: its T*, and its mean to five places. */
const RECORD = { steps: 1003, mean: 3.27519, n: 8 };
const MARGIN = 1e-4;
const SCALE_UP_MS = 60_000;

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'recur-judge-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A workspace whose CONFIG is `knobs` at `steps`; the judge reads nothing else of it. */
function workspace(knobs: string, steps: number): string {
  const dir = mkdtempSync(join(root, 'ws-'));
  writeFileSync(join(dir, 'train.py'), SHIPPED.replace(EDITABLE, `$1CONFIG = {${knobs} 'train_steps': ${steps}}\n$2`));
  return dir;
}

function run(argv: string[]): { code: number | null; lines: string[]; stderr: string } {
  const r = spawnSync('python3', argv, { cwd: task.dir, encoding: 'utf8' });
  return { code: r.status, lines: r.stdout.split('\n').filter((l) => l !== ''), stderr: r.stderr };
}

function judge(dir: string, o: JudgeArgs = {}): { code: number | null; v: JudgeOutput } {
  const r = run(judgeArgv(task, dir, o));
  expect(r.lines).toHaveLength(1);
  return { code: r.code, v: JSON.parse(r.lines[0]) as JudgeOutput };
}

const clearOf = (below: number, above: number): void => expect(above - below).toBeGreaterThanOrEqual(MARGIN);

describe('verify.py screens (--trials below 8)', () => {
  it('one seed: tail EMA at 1003 steps is promising, the baseline at its own T* is not; neither is accepted', () => {
    const ema = judge(workspace(TAIL_EMA, 1003), { trials: 1 });
    expect([ema.code, ema.v.accepted, ema.v.promising, ema.v.n, ema.v.seeds]).toEqual([1, false, true, 1, [0xc0ffee]]);
    expect(ema.v.bar).toBeCloseTo(3.26764, 5);
    clearOf(ema.v.mean!, ema.v.bar);
    expect(ema.v.reason).toMatch(/^screen of 1 seed, never a record: mean 3\.\d{5} < bar 3\.26764, promising$/);
    const base = judge(workspace(BASELINE, 1003), { trials: 1 });
    expect([base.v.accepted, base.v.promising, base.v.clears_bar]).toEqual([false, false, false]);
    clearOf(base.v.bar, base.v.mean!);
    expect(base.v.reason).toContain('screen of 1 seed, never a record: mean');
  });

  it('a screen of n seeds is held to the z-rule bar 3.28 - 3.09*0.004/sqrt(n)', () => {
    const { v } = judge(workspace(TAIL_EMA, 700), { trials: 4 });
    expect([v.n, v.promising, v.accepted]).toEqual([4, true, false]);
    expect(v.bar).toBeCloseTo(3.28 - (3.09 * 0.004) / 2, 10);
    clearOf(v.mean!, v.bar);
  });

  it('refuses, with exit 2 and no verdict, trials outside 1..8, a malformed record and record stages on a screen', () => {
    const dir = workspace(BASELINE, 1003);
    const base = judgeArgv(task, dir, {});
    const cases: [string[], string][] = [
      [judgeArgv(task, dir, { trials: 0 }), '--trials: must be an integer from 1 to 8'],
      [judgeArgv(task, dir, { trials: 9 }), '--trials: must be an integer from 1 to 8'],
      [[...base, '--trials', '2.5'], '--trials: must be an integer from 1 to 8'],
      [[...base, '--against', '{"steps": 1003, "mean": 3.27519}'], '--against: must be {"steps": S, "mean": M, "n": K}'],
      [[...base, '--against', '{"steps": 0, "mean": 3.27519, "n": 8}'], '--against: must be'],
      [[...base, '--against', 'record'], '--against: is not JSON'],
      [judgeArgv(task, dir, { trials: 4, against: RECORD }), 'a screen (--trials below 8) is never a record'],
      [judgeArgv(task, dir, { trials: 4, scaleUp: true }), 'a screen (--trials below 8) is never a record'],
      [judgeArgv(task, dir, { problem: 'large', scaleUp: true }), '--scale-up takes a candidate judged on the small problem'],
      [judgeArgv(task, dir, { trials: 9, exitZero: true }), '--trials: must be'],
      [judgeArgv(task, dir, { simSecondsPerStep: -1 }), '--sim-seconds-per-step: must be a number of seconds >= 0'],
    ];
    for (const [argv, message] of cases) {
      const r = run(argv);
      expect([r.code, r.lines]).toEqual([2, []]);
      expect(r.stderr).toContain(message);
    }
  });
});

describe('verify.py --sim-seconds-per-step (the virtual executor\'s charge)', () => {
  it('reports the run time the judged seeds stand for on a line before the verdict', () => {
    const screen = run(judgeArgv(task, workspace(BASELINE, 1003), { trials: 1, simSecondsPerStep: 0.15 }));
    expect(screen.lines[0]).toBe('sim_seconds: 150.450');
    expect(JSON.parse(screen.lines[1])).toMatchObject({ n: 1, steps: 1003 });
    // Rejected before any scale-up stage: its 8 seeds at its own steps, nothing more.
    const candidate = run(judgeArgv(task, workspace(BASELINE, 1003), { against: RECORD, scaleUp: true, simSecondsPerStep: 1 }));
    expect(candidate.lines[0]).toBe('sim_seconds: 8024.000');
    expect(JSON.parse(candidate.lines[1])).toMatchObject({ accepted: false, scale_up: null });
  });
});

describe('verify.py record candidates (--against the current record)', () => {
  it('accepts a real improvement: tail EMA at 700 steps against the baseline record at 1003', () => {
    const { code, v } = judge(workspace(TAIL_EMA, 700), { against: RECORD });
    expect([code, v.accepted, v.clears_bar, v.promising, v.n]).toEqual([0, true, true, false, 8]);
    clearOf(v.mean!, v.bar);
    expect(v.pairwise).toEqual({ previous_steps: 1003, previous_mean: 3.27519, previous_n: 8, score: expect.any(Number), threshold: 0.01236, passed: true });
    clearOf(v.pairwise!.threshold, v.pairwise!.score);
    expect(v.reason).toMatch(/^mean 3\.\d{5} < bar 3\.27563 over 8 seeds; pairwise score 0\.\d{5} >= 0\.01236 against the record's 1003 steps/);
    expect(v.scale_up).toBeNull();
  });

  it("rejects a sub-sigma improvement (Nesterov at 992, the feed's r1) that clears the bar but fails the pairwise rule, and then runs no scale-up", () => {
    const { code, v } = judge(workspace(NESTEROV, 992), { against: RECORD, scaleUp: true });
    expect([code, v.accepted, v.clears_bar, v.pairwise?.passed, v.scale_up]).toEqual([1, false, true, false, null]);
    clearOf(v.mean!, v.bar);
    clearOf(v.pairwise!.score, v.pairwise!.threshold);
    expect(v.reason).toMatch(/^pairwise score 0\.\d{5} < 0\.01236 against the record's 1003 steps \(mean 3\.27519 over 8 seeds\)$/);
  });

  it('rejects a candidate whose steps are not below the record, even where its mean would pass the pairwise rule', () => {
    const { v } = judge(workspace(TAIL_EMA, 700), { against: { steps: 700, mean: 3.28, n: 8 } });
    expect([v.accepted, v.clears_bar, v.pairwise?.passed]).toEqual([false, true, true]);
    clearOf(v.pairwise!.threshold, v.pairwise!.score);
    expect(v.reason).toBe("700 steps is not below the record's 700 steps (mean 3.28000 over 8 seeds)");
  });

  it('rejects the illegal lever against a record though the bar and the pairwise rule pass', () => {
    const { code, v } = judge(workspace(`${BASELINE} 'grad_evals_per_step': 2,`, 700), { against: RECORD });
    expect([code, v.accepted, v.clears_bar, v.pairwise?.passed]).toEqual([1, false, true, true]);
    expect(v.reason).toContain('illegal lever: grad_evals_per_step=2');
  });

  it('with --exit-zero exits 0 on a rejection; the verdict is one line of compact JSON, the one runJudge reads', async () => {
    const dir = workspace(NESTEROV, 992);
    const r = run(judgeArgv(task, dir, { against: RECORD, exitZero: true }));
    expect([r.code, r.lines.length]).toEqual([0, 1]);
    expect(r.lines[0].startsWith('{"accepted":false,"clears_bar":true,"promising":false,')).toBe(true);
    expect(run(judgeArgv(task, dir, { against: RECORD })).code).toBe(1);
    const v = await runJudge({ task, dir, against: RECORD, exitZero: true });
    expect(v).toEqual(JSON.parse(r.lines[0]));
  });
});

describe('verify.py --scale-up (T* on the large problem against the baseline)', () => {
  it('rejects tail EMA at 700: bar and pairwise pass, but its large T* is 0.94 of the baseline\'s where its small is 0.70', () => {
    const { code, v } = judge(workspace(TAIL_EMA, 700), { against: RECORD, scaleUp: true });
    expect([code, v.accepted, v.pairwise?.passed]).toEqual([1, false, true]);
    expect(v.scale_up).toEqual({
      large_steps: 4222, baseline_large_steps: 4503, baseline_small_steps: 1003,
      ratio_large: 4222 / 4503, ratio_small: 700 / 1003, passed: false,
    });
    expect(v.reason).toBe('scale-up: large T* 4222/4503 = 0.9376 > small 700/1003 = 0.6979 + 0.05');
  }, SCALE_UP_MS);

  it("rejects, with a reason, a candidate that never clears the bar on the large problem (lr 3.5 diverges there), also by the workspace's own copy of verify.py", () => {
    // The copy loads the workspace's train.py, whose CONFIG is the candidate: the stage's baseline must not come from it.
    const dir = workspace(BASELINE.replace("'lr': 1.0", "'lr': 3.5"), 1600);
    writeFileSync(join(dir, 'verify.py'), readFileSync(join(task.dir, 'verify.py')));
    const r = spawnSync('python3', ['-I', '-B', 'verify.py', '--workspace', '.', '--scale-up', '--json'], { cwd: dir, encoding: 'utf8' });
    expect([r.status, r.stderr]).toEqual([1, '']);
    const v = JSON.parse(r.stdout) as JudgeOutput;
    expect([v.accepted, v.clears_bar]).toEqual([false, true]);
    clearOf(v.mean!, v.bar);
    expect(v.scale_up).toEqual(expect.objectContaining({ large_steps: null, ratio_large: null, passed: false }));
    expect(v.reason).toMatch(/^scale-up: no doubling up to 18012 steps clears the bar on the large problem, so its T\* there is above 9006; passing needs at most \d+$/);
  }, SCALE_UP_MS);
});

describe("the judge never runs the agent's code (docs/sandbox.md, what runs beside the cell)", () => {
  it('a train.py whose editable block, or whose frozen part, would run a command is rejected and runs nothing', () => {
    const marker = join(root, 'judge-ran-agent-code');
    const payload = `__import__('os').system('touch ${marker}')`;
    const inBlock = workspace(`${BASELINE} 'ema': ${payload},`, 1003);
    const asStatement = mkdtempSync(join(root, 'ws-'));
    writeFileSync(join(asStatement, 'train.py'), SHIPPED.replace(EDITABLE, `$1${payload}\nCONFIG = {${BASELINE} 'train_steps': 1003}\n$2`));
    const inFrozen = mkdtempSync(join(root, 'ws-'));
    writeFileSync(join(inFrozen, 'train.py'), `${payload}\n${SHIPPED}`);
    for (const dir of [inBlock, asStatement, inFrozen]) {
      const { v } = judge(dir, { trials: 1 });
      expect(v).toMatchObject({ accepted: false });
      expect(v.reason).toMatch(/literal|assignment|frozen/);
    }
    expect(existsSync(marker)).toBe(false);
    // The same payload, imported as Python would import the file: it runs.
    spawnSync('python3', ['-c', 'import train'], { cwd: asStatement });
    expect(existsSync(marker)).toBe(true);
  });
});
