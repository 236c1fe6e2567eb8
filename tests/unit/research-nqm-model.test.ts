import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseFeed } from '../../services/research/records-feed';
import { tasksRoot } from '../../services/research/tasks';

const TASK = join(tasksRoot(), 'nqm-speedrun');

/** Runs Python against the shipped task dir's modules (train, verify) and returns its stdout lines. */
function py(code: string): string[] {
  const prelude = `import sys, json; sys.path.insert(0, ${JSON.stringify(TASK)}); import train, verify\n`;
  return execFileSync('python3', ['-I', '-c', prelude + code], { encoding: 'utf8' }).trim().split('\n');
}

const trace = (config: string, problem = 'small'): string =>
  py(`print(' '.join('%d:%.5f' % (s, l) for s, l, v in train.simulate(train.normalize(${config}), '${problem}')))`)[0];

describe('nqm-speedrun model', () => {
  it('gives the golden %.5f losses for the shipped baseline, and the same on a second run', () => {
    const golden = '100:21.91754 200:20.23359 300:17.80529 401:14.89117 501:11.87665 601:9.03051 702:6.57019 802:4.72415 902:3.59569 1003:3.27593';
    expect(trace('train.CONFIG')).toBe(golden);
    expect(trace('train.CONFIG')).toBe(golden);
  });

  it('gives golden per-seed values: each seed its own, from seeds 0xC0FFEE+0..7', () => {
    const values = py(`c = train.normalize(train.CONFIG); tr = train.simulate(c)
print(' '.join('%.5f' % train.reported(c, s, tr)[-1][1] for s in range(0xC0FFEE, 0xC0FFEE + 8)))`)[0];
    expect(values).toBe('3.27912 3.27791 3.27280 3.28201 3.27130 3.26942 3.26616 3.28278');
  });

  it('gives golden losses with Nesterov, a diag preconditioner, EMA, power cooldown, warmup and a floor on the large problem', () => {
    const config = "{'momentum': 0.9, 'nesterov': True, 'schedule': 'power', 'power': 1.5, 'cooldown_frac': 0.6, 'precond': 'diag', 'precond_power': 0.3, 'ema': 0.98, 'ema_start_frac': 0.4, 'warmup': 20, 'lr_floor': 0.05, 'init_scale': 1.5, 'lr': 0.8, 'train_steps': 200}";
    expect(trace(config, 'large')).toBe('20:66.01317 40:67.80906 60:67.69353 80:67.59972 100:33.28120 120:17.36017 140:10.23860 160:7.05413 180:5.63889 200:5.02923');
  });

  it('gives golden losses with an eigenbasis preconditioner, a linear cooldown and two gradient evaluations a step', () => {
    const config = "{'precond': 'eigen', 'precond_power': 0.2, 'schedule': 'linear', 'cooldown_frac': 0.5, 'momentum': 0.5, 'train_steps': 100, 'grad_evals_per_step': 2}";
    expect(trace(config)).toBe('10:8.48479 20:8.35580 30:8.27042 40:8.20941 50:8.16276 60:7.18916 70:6.14023 80:5.21072 90:4.41615 100:3.92139');
  });

  it('reports a run as inf from where one direction diverges to its end, though the others stay stable', () => {
    // lr 2.05 at constant step is past heavy ball's limit (2) only for the sharpest direction.
    const losses = py("print(' '.join(str(l) for s, l, v in train.simulate(train.normalize({'lr': 2.05, 'cooldown_frac': 0.0, 'train_steps': 6000}))))")[0];
    expect(losses.split(' ')).toEqual(Array(10).fill('inf'));
    const stable = py("print(train.simulate(train.normalize({'lr': 1.95, 'cooldown_frac': 0.0, 'train_steps': 6000}))[-1][1])")[0];
    expect(Number(stable)).toBeLessThan(100);
  });

  it("verify.py's frozen hash is that of the shipped train.py with its editable block cut out", () => {
    const lines = readFileSync(join(TASK, 'train.py'), 'utf8').split(/(?<=\n)/);
    const start = lines.indexOf('# ==== EDITABLE: optimizer config ====\n');
    const end = lines.indexOf('# ==== END ====\n');
    expect(start).toBeGreaterThan(0);
    expect(end).toBeGreaterThan(start);
    const frozen = [...lines.slice(0, start + 1), ...lines.slice(end)].join('');
    const expected = createHash('sha256').update(frozen).digest('hex');
    expect(readFileSync(join(TASK, 'verify.py'), 'utf8')).toContain(`FROZEN_SHA256 = '${expected}'`);
  });

  it("verify.py's BASELINE, the scale-up stage's, is the shipped CONFIG without train_steps", () => {
    const [same] = py("print({k: v for k, v in train.CONFIG.items() if k != 'train_steps'} == verify.BASELINE)");
    expect(same).toBe('True');
  });

  it("the shipped CONFIG's train_steps is the baseline's 8-seed T* by the shipped judge's bisection", () => {
    const [steps, shipped] = py(`print(verify.t_star(verify.BASELINE, 'small'))
print(train.CONFIG['train_steps'])`);
    expect(steps).toBe('1003');
    expect(shipped).toBe(steps);
  });

  it('every human record in the feed clears the bar by 1e-4 at its steps, each below the last, with the mean and n the judge measures', () => {
    const feed = parseFeed(readFileSync(join(TASK, 'records', 'feed.jsonl'), 'utf8'));
    expect(feed.length).toBeGreaterThanOrEqual(3);
    expect(feed[0].release_after_seconds).toBe(0);
    const verdicts = py(`for r in json.loads(${JSON.stringify(JSON.stringify(feed))}):
    print(json.dumps(verify.judge_config({**r['config'], 'train_steps': r['train_steps']}, 'small')))`).map((l) => JSON.parse(l) as { accepted: boolean; mean: number; bar: number; steps: number; n: number });
    verdicts.forEach((v, i) => {
      expect(v.accepted).toBe(true);
      // The host judges the first candidate against the feed's numbers: they are the judge's own.
      expect(feed[i]).toMatchObject({ mean: v.mean, n: v.n, train_steps: v.steps });
      expect(v.bar - v.mean).toBeGreaterThanOrEqual(1e-4);
      if (i > 0) expect(v.steps).toBeLessThan(verdicts[i - 1].steps);
      if (i > 0) expect(feed[i].release_after_seconds).toBeGreaterThan(feed[i - 1].release_after_seconds);
    });
  });
});
