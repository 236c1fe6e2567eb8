"""Frozen judge for nqm-speedrun.

    python3 verify.py logs/<uuid>.txt [--json]
        checks a log: its source's frozen regions, its seeds and n (1 = screen, 8 = record),
        then the bar on its final lines. The log itself is trusted: a self-check only.
    python3 verify.py --workspace DIR [--problem small|large] [--trials N]
                      [--against '{"steps": S, "mean": M, "n": K}'] [--scale-up] [--exit-zero] [--json]
                      [--sim-seconds-per-step S]
        the judge Recur runs: it reads DIR/train.py as text, checks its frozen regions, takes
        nothing from it but the CONFIG literal, and runs the fixed seeds 0xC0FFEE+0..N-1 on its
        own copy of the model (the train.py beside this file). N below 8 is a screen: promising
        or not, never accepted. --against judges a record candidate against the current record
        (fewer steps and the pairwise rule); --scale-up adds the large-problem stage once all
        else passed. --json prints the verdict as one line. --sim-seconds-per-step S first
        prints `sim_seconds: X`, the run time the judged runs stand for at S a step and seed
        (the candidate's seeds, and its 8 seeds at its large T* when the scale-up stage ran),
        which Recur's virtual executor charges the experiment.

Exit 0: accepted (a log: PASS or PROMISING); 1: not; 2: bad arguments or a log of another n.
--exit-zero: 0 whenever a verdict was printed (the verdict's accepted says the rest).
"""
import argparse
import ast
import functools
import hashlib
import importlib.util
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EDIT_START = '# ==== EDITABLE: optimizer config ===='
EDIT_END = '# ==== END ===='
# sha256 of train.py with its editable block cut out (the marker lines stay); a test keeps it
# equal to the shipped train.py, so a copy of this file also catches an edited harness.
FROZEN_SHA256 = '0c2e907c87af2b941f97db3c832a136e8d22c78f6948fa49511654036d4c5f7c'
N_RECORD = 8
# One-sided z-test at p < 0.001 (z = 3.09) with a run's sigma at the bar (0.004).
Z, SIGMA = 3.09, 0.004


def bar(n):
    """What an n-seed mean must be below: the z-test against 3.28."""
    return 3.28 - Z * SIGMA / math.sqrt(n)


BAR = bar(N_RECORD)
# research-loop §5.3's pairwise rule: 100 steps fewer are worth 0.0248 of mean loss, and the
# candidate's gain over the record, in both, must clear z·sigma scaled by the two sample sizes.
LOSS_PER_100_STEPS = 0.0248
PAIR_THRESHOLD = Z * SIGMA
# The scale-up stage (F9's second judge): a candidate's large-problem T*, as a fraction of the
# baseline's, may exceed its small-problem fraction by this much.
SCALE_SLACK = 0.05
# The baseline the scale-up stage measures against: the shipped train.py's CONFIG without
# train_steps (a test keeps them equal). Kept here, not read from the train.py beside this file,
# because in a workspace that file holds the agent's CONFIG.
BASELINE = {
    'lr': 1.0, 'momentum': 0.8, 'nesterov': False, 'warmup': 0, 'schedule': 'cosine', 'cooldown_frac': 1.0,
    'power': 1.0, 'lr_floor': 0.0, 'precond': 'none', 'precond_power': 0.5, 'ema': 0.0, 'ema_start_frac': 0.0,
    'init_scale': 1.0,
}
# Levers the model has but the rules forbid, with the only value a record may use.
ILLEGAL = {'grad_evals_per_step': (1, 'one step must be one gradient evaluation')}
MAX_BLOCK_CHARS = 8192
# A workspace's train.py is read as text; a link to something endless must not hang the judge.
MAX_SOURCE_CHARS = 1 << 20


class Rejected(Exception):
    pass


def split(source):
    """(frozen text, editable block); the frozen text keeps the marker lines."""
    lines = source.splitlines(keepends=True)
    starts = [i for i, l in enumerate(lines) if l.rstrip('\r\n') == EDIT_START]
    ends = [i for i, l in enumerate(lines) if l.rstrip('\r\n') == EDIT_END]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise Rejected('train.py must hold exactly one editable block, between '
                       f'"{EDIT_START}" and "{EDIT_END}" lines')
    s, e = starts[0], ends[0]
    return ''.join(lines[:s + 1] + lines[e:]), ''.join(lines[s + 1:e])


def frozen_hash(source):
    return hashlib.sha256(split(source)[0].encode()).hexdigest()


def parse_config(block):
    """The block's CONFIG as a literal, never executed."""
    if len(block) > MAX_BLOCK_CHARS:
        raise Rejected(f'the editable block is over {MAX_BLOCK_CHARS} characters')
    try:
        tree = ast.parse(block)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        raise Rejected(f'the editable block does not parse: {e}')
    body = tree.body
    if (len(body) != 1 or not isinstance(body[0], ast.Assign) or len(body[0].targets) != 1
            or not isinstance(body[0].targets[0], ast.Name) or body[0].targets[0].id != 'CONFIG'
            or not isinstance(body[0].value, ast.Dict)):
        raise Rejected('the editable block must be one assignment "CONFIG = {...}" of a dict literal')
    try:
        config = ast.literal_eval(body[0].value)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError) as e:
        raise Rejected(f'CONFIG is not a plain literal: {e}')
    if not all(isinstance(k, str) for k in config):
        raise Rejected('CONFIG keys must be strings')
    return config


@functools.lru_cache(maxsize=None)
def load_model():
    spec = importlib.util.spec_from_file_location('nqm_train', os.path.join(HERE, 'train.py'))
    model = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(model)
    return model


def finite(x):
    return x if math.isfinite(x) else None


def verdict(**fields):
    base = {'accepted': False, 'clears_bar': False, 'promising': False, 'steps': None, 'mean': None,
            'n': 0, 'seeds': [], 'values': [], 'bar': BAR, 'config_hash': None, 'frozen_hash': None,
            'pairwise': None, 'scale_up': None}
    return {**base, **fields}


def judge_workspace(directory, problem, trials=N_RECORD, against=None, scale_up=False):
    try:
        with open(os.path.join(directory, 'train.py'), encoding='utf-8') as f:
            source = f.read(MAX_SOURCE_CHARS + 1)
    except (OSError, UnicodeDecodeError) as e:
        return verdict(reason=f'cannot read train.py: {e}')
    if len(source) > MAX_SOURCE_CHARS:
        return verdict(reason=f'train.py is over {MAX_SOURCE_CHARS} characters')
    try:
        found = frozen_hash(source)
        if found != FROZEN_SHA256:
            return verdict(frozen_hash=found, reason='the frozen regions of train.py differ from the shipped harness')
        config = parse_config(split(source)[1])
    except Rejected as e:
        return verdict(reason=str(e))
    return judge_config(config, problem, found, trials, against, scale_up)


def run_seeds(c, problem, n):
    """(seeds, final values, mean) of the first n fixed seeds on the shipped model."""
    model = load_model()
    trace = model.simulate(c, problem)
    seeds = [model.SEED_BASE + i for i in range(n)]
    values = [model.reported(c, seed, trace)[-1][1] for seed in seeds]
    return seeds, values, sum(values) / n


def judge_config(config, problem, found=FROZEN_SHA256, trials=N_RECORD, against=None, scale_up=False):
    """The rules applied to a CONFIG literal: the first `trials` fixed seeds run here, on the
    shipped model. Fewer than 8 is a screen; `against` (the current record, a dict of steps,
    mean and n) and `scale_up` add the stages a record candidate must also pass."""
    model = load_model()
    try:
        c = model.normalize(config)
    except ValueError as e:
        return verdict(frozen_hash=found, reason=f'bad CONFIG: {e}')
    seeds, values, mean = run_seeds(c, problem, trials)
    b = bar(trials)
    clears = mean < b
    illegal = [f'{k}={c[k]!r} ({why})' for k, (legal, why) in ILLEGAL.items() if c[k] != legal]
    pair = pairwise(c['train_steps'], mean, trials, against) if against and math.isfinite(mean) else None
    fields = dict(clears_bar=clears, steps=c['train_steps'], mean=finite(mean), n=trials, seeds=seeds,
                  values=[finite(v) for v in values], bar=b, config_hash=model.config_hash(c),
                  frozen_hash=found, pairwise=pair)
    if illegal:
        failure = f'illegal lever: {"; ".join(illegal)}'
    elif not math.isfinite(mean):
        failure = 'diverged'
    elif not clears:
        failure = f'mean {mean:.5f} does not clear bar {b:.5f}'
    else:
        failure = None
    if trials < N_RECORD:
        words = failure or f'mean {mean:.5f} < bar {b:.5f}, promising'
        return verdict(promising=not failure, reason=f'screen of {trials} seed{"s" if trials > 1 else ""}, never a record: {words}', **fields)
    passed = [f'mean {mean:.5f} < bar {b:.5f} over {trials} seeds']
    if not failure and against:
        record = f"the record's {against['steps']} steps (mean {against['mean']:.5f} over {against['n']} seeds)"
        if c['train_steps'] >= against['steps']:
            failure = f"{c['train_steps']} steps is not below {record}"
        elif not pair['passed']:
            failure = f"pairwise score {pair['score']:.5f} < {PAIR_THRESHOLD:.5f} against {record}"
        else:
            passed.append(f"pairwise score {pair['score']:.5f} >= {PAIR_THRESHOLD:.5f} against {record}")
    stage = None
    if not failure and scale_up:
        stage, words = scale_up_stage(c)
        if stage['passed']:
            passed.append(words)
        else:
            failure = words
    return verdict(accepted=not failure, reason=failure or '; '.join(passed), scale_up=stage, **fields)


def pairwise(steps, mean, n, record):
    """research-loop §5.3: the candidate's gain over the record in loss and in steps, in units of
    the difference of two means' standard error."""
    gain = (record['mean'] - mean) + LOSS_PER_100_STEPS * (record['steps'] - steps) / 100
    score = gain / math.sqrt(1 / record['n'] + 1 / n)
    return {'previous_steps': record['steps'], 'previous_mean': record['mean'], 'previous_n': record['n'],
            'score': score, 'threshold': PAIR_THRESHOLD, 'passed': score >= PAIR_THRESHOLD}


def clears(config, steps, problem):
    c = load_model().normalize({**config, 'train_steps': steps})
    return run_seeds(c, problem, N_RECORD)[2] < BAR


def t_star(config, problem, cap=None):
    """The 8-seed T* of a config (its knobs, without train_steps): doubling from 2 to the first
    step count that clears the bar, then halving down to where one step fewer does not. None when
    no doubling up to cap (at most the model's MAX_STEPS) clears."""
    cap = min(cap or math.inf, load_model().MAX_STEPS)
    lo, hi = 1, 2
    while not clears(config, hi, problem):
        lo, hi = hi, hi * 2
        if hi > cap:
            return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if clears(config, mid, problem):
            hi = mid
        else:
            lo = mid
    return hi


def scale_up_stage(c):
    """F9's second judge: does a gain on the small problem hold on the large one? The candidate's
    small T* is its own train_steps (it has just cleared the bar there); the other three are
    bisected by t_star, the search calibrate.py prints. (stage, reason words)."""
    base_small, base_large = t_star(BASELINE, 'small'), t_star(BASELINE, 'large')
    ratio_small = c['train_steps'] / base_small
    most = (ratio_small + SCALE_SLACK) * base_large
    # Far enough to measure any candidate within 4x the baseline, and past twice the most that
    # could pass: a doubling that gives up at cap has failed above cap/2, so it rejects nothing
    # the unbounded search would pass.
    cap = max(4 * base_large, 2 * most)
    large = t_star({k: v for k, v in c.items() if k != 'train_steps'}, 'large', cap)
    ratio_large = large / base_large if large else None
    passed = large is not None and ratio_large <= ratio_small + SCALE_SLACK
    stage = {'large_steps': large, 'baseline_large_steps': base_large, 'baseline_small_steps': base_small,
             'ratio_large': ratio_large, 'ratio_small': ratio_small, 'passed': passed}
    if large is None:
        return stage, (f'scale-up: no doubling up to {cap:.0f} steps clears the bar on the large problem, '
                       f'so its T* there is above {cap / 2:.0f}; passing needs at most {most:.0f}')
    return stage, (f'scale-up: large T* {large}/{base_large} = {ratio_large:.4f} {"<=" if passed else ">"} '
                   f"small {c['train_steps']}/{base_small} = {ratio_small:.4f} + {SCALE_SLACK}")


STEP_LINE = re.compile(r'^step:(\d+)/(\d+) val_loss:(\S+)$')
SEED_LINE = re.compile(r'^seed:(\d+)$')


def judge_log(path):
    with open(path, encoding='utf-8') as f:
        lines = f.read().splitlines()
    first = next((i for i, l in enumerate(lines) if SEED_LINE.match(l)), len(lines))
    found = frozen_hash('\n'.join(lines[:first]) + '\n')
    if found != FROZEN_SHA256:
        return verdict(frozen_hash=found, reason='the logged source is not the shipped harness'), 1
    seeds, finals, totals = [], [], set()
    for line in lines[first:]:
        m = SEED_LINE.match(line)
        if m:
            seeds.append(int(m.group(1)))
            finals.append(None)
            continue
        m = STEP_LINE.match(line)
        if m and seeds and m.group(1) == m.group(2):
            totals.add(int(m.group(2)))
            finals[-1] = float(m.group(3))
    expected = [0xC0FFEE + i for i in range(len(seeds))]
    if seeds != expected or None in finals or len(totals) != 1:
        return verdict(frozen_hash=found, reason='seeds must be 0xC0FFEE+0..n-1, each with its final step line at one train_steps'), 1
    steps = totals.pop()
    if len(seeds) not in (1, N_RECORD):
        return verdict(frozen_hash=found, n=len(seeds), reason='validation is 1 trial (screen) or 8 trials (record)'), 2
    mean = sum(finals) / len(finals)
    b = bar(len(seeds))
    clears = mean < b
    word = ('PASS' if clears else 'FAIL') if len(seeds) == N_RECORD else ('PROMISING' if clears else 'NOT PROMISING')
    return verdict(accepted=clears, clears_bar=clears, promising=clears and len(seeds) == 1, steps=steps,
                   mean=finite(mean), n=len(seeds), seeds=seeds, values=[finite(v) for v in finals], bar=b,
                   frozen_hash=found, reason=f'{word}: mean {mean:.5f} vs bar {b:.5f}'), 0 if clears else 1


USAGE = ('verify.py logs/<uuid>.txt [--json] | verify.py --workspace DIR [--problem small|large] [--trials N] '
         '[--against JSON] [--scale-up] [--exit-zero] [--json] [--sim-seconds-per-step S]')


def trials_arg(text):
    if not re.fullmatch(r'[1-8]', text):
        raise argparse.ArgumentTypeError(f'must be an integer from 1 to {N_RECORD}, not {text!r}')
    return int(text)


def record_arg(text):
    """The current record, as the host holds it: {"steps": S, "mean": M, "n": K}, nothing else."""
    try:
        r = json.loads(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(f'is not JSON: {e}')
    def integer(v):
        return isinstance(v, int) and not isinstance(v, bool) and v >= 1
    if (not isinstance(r, dict) or sorted(r) != ['mean', 'n', 'steps'] or not integer(r['steps'])
            or not integer(r['n']) or isinstance(r['mean'], bool) or not isinstance(r['mean'], (int, float))
            or not math.isfinite(r['mean'])):
        raise argparse.ArgumentTypeError('must be {"steps": S, "mean": M, "n": K}: steps and n integers >= 1, mean a finite number')
    return r


def seconds_arg(text):
    try:
        s = float(text)
    except ValueError:
        s = -1.0
    if not (math.isfinite(s) and s >= 0):
        raise argparse.ArgumentTypeError(f'must be a number of seconds >= 0, not {text!r}')
    return s


def sim_seconds(v, per_step):
    """The run time the judged runs stand for: every seed of the candidate, then the scale-up
    stage's confirming 8 seeds at the candidate's large T*. The bisections that find T* are the
    judge's own bookkeeping, not runs a cluster would be charged for."""
    steps = (v['steps'] or 0) * v['n']
    large = (v['scale_up'] or {}).get('large_steps')
    if large:
        steps += large * N_RECORD
    return per_step * steps


def parse(argv):
    p = argparse.ArgumentParser(prog='verify.py', usage=USAGE, allow_abbrev=False)
    p.add_argument('log', nargs='?')
    p.add_argument('--workspace')
    p.add_argument('--problem', choices=('small', 'large'), default='small')
    p.add_argument('--trials', type=trials_arg)
    p.add_argument('--against', type=record_arg)
    p.add_argument('--scale-up', action='store_true')
    p.add_argument('--exit-zero', action='store_true')
    p.add_argument('--json', action='store_true')
    p.add_argument('--sim-seconds-per-step', type=seconds_arg)
    a = p.parse_args(argv)
    if (a.log is None) == (a.workspace is None):
        p.error('judge either a log or --workspace DIR')
    if a.log is not None and (a.trials or a.against or a.scale_up or a.exit_zero):
        p.error('--trials, --against, --scale-up and --exit-zero judge a workspace, not a log')
    a.trials = a.trials or N_RECORD
    if a.trials < N_RECORD and (a.against or a.scale_up):
        p.error(f'a screen (--trials below {N_RECORD}) is never a record: --against and --scale-up judge {N_RECORD} seeds')
    if a.scale_up and a.problem != 'small':
        p.error('--scale-up takes a candidate judged on the small problem to the large one: use --problem small')
    return a


def main(argv):
    a = parse(argv)
    if a.workspace is not None:
        v = judge_workspace(a.workspace, a.problem, a.trials, a.against, a.scale_up)
        code = 0 if v['accepted'] or a.exit_zero else 1
    else:
        v, code = judge_log(a.log)
    v['problem'] = a.problem
    if a.workspace is not None and a.sim_seconds_per_step is not None:
        print(f'sim_seconds: {sim_seconds(v, a.sim_seconds_per_step):.3f}')
    if a.json:
        # One line, so a host can take the last line of the output as the verdict.
        print(json.dumps(v, separators=(',', ':')))
    elif a.workspace is None:
        print(v['reason'])
    elif v['n'] and v['n'] < N_RECORD:
        print(f'{"promising" if v["promising"] else "not promising"}: {v["reason"]}')
    else:
        print(f'{"accepted" if v["accepted"] else "not accepted"}: {v["reason"]}')
    return code


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
