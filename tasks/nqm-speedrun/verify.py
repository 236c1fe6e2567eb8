"""Frozen judge for nqm-speedrun.

    python3 verify.py logs/<uuid>.txt [--json]
        checks a log: its source's frozen regions, its seeds and n (1 = screen, 8 = record),
        then the bar on its final lines. The log itself is trusted: a self-check only.
    python3 verify.py --workspace DIR [--problem small|large] [--json]
        the judge Recur runs: it reads DIR/train.py as text, checks its frozen regions, takes
        nothing from it but the CONFIG literal, and runs the 8 fixed seeds on its own copy of
        the model (the train.py beside this file).

Exit 0: accepted (a log: PASS or PROMISING); 1: not; 2: bad arguments or a log of another n.
"""
import ast
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
# One-sided z-test, p < 0.001 (z = 3.09), per-run sigma 0.004, against 3.28.
BAR = 3.28 - 3.09 * 0.004 / math.sqrt(N_RECORD)
SCREEN_BAR = 3.28 - 3.09 * 0.004
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


def load_model():
    spec = importlib.util.spec_from_file_location('nqm_train', os.path.join(HERE, 'train.py'))
    model = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(model)
    return model


def finite(x):
    return x if math.isfinite(x) else None


def verdict(**fields):
    base = {'accepted': False, 'clears_bar': False, 'steps': None, 'mean': None, 'n': 0,
            'seeds': [], 'values': [], 'bar': BAR, 'config_hash': None, 'frozen_hash': None}
    return {**base, **fields}


def judge_workspace(directory, problem):
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
    return judge_config(config, problem, found)


def judge_config(config, problem, found=FROZEN_SHA256):
    """The rule applied to a CONFIG literal: the 8 fixed seeds run here, on the shipped model."""
    model = load_model()
    try:
        c = model.normalize(config)
    except ValueError as e:
        return verdict(frozen_hash=found, reason=f'bad CONFIG: {e}')
    trace = model.simulate(c, problem)
    seeds = [model.SEED_BASE + i for i in range(N_RECORD)]
    values = [model.reported(c, seed, trace)[-1][1] for seed in seeds]
    mean = sum(values) / len(values)
    clears = mean < BAR
    illegal = [f'{k}={c[k]!r} ({why})' for k, (legal, why) in ILLEGAL.items() if c[k] != legal]
    if illegal:
        reason = f'illegal lever: {"; ".join(illegal)}'
    elif clears:
        reason = f'mean {mean:.5f} < bar {BAR:.5f} over {N_RECORD} seeds'
    else:
        reason = f'mean {mean:.5f} does not clear bar {BAR:.5f}' if math.isfinite(mean) else 'diverged'
    return verdict(accepted=clears and not illegal, clears_bar=clears, steps=c['train_steps'],
                   mean=finite(mean), n=N_RECORD, seeds=seeds, values=[finite(v) for v in values],
                   config_hash=model.config_hash(c), frozen_hash=found, reason=reason)


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
    bar = BAR if len(seeds) == N_RECORD else SCREEN_BAR
    clears = mean < bar
    word = ('PASS' if clears else 'FAIL') if len(seeds) == N_RECORD else ('PROMISING' if clears else 'NOT PROMISING')
    return verdict(accepted=clears, clears_bar=clears, steps=steps, mean=finite(mean), n=len(seeds), seeds=seeds,
                   values=[finite(v) for v in finals], bar=bar, frozen_hash=found,
                   reason=f'{word}: mean {mean:.5f} vs bar {bar:.5f}'), 0 if clears else 1


def main(argv):
    args = [a for a in argv if a != '--json']
    problem = 'small'
    if '--problem' in args:
        i = args.index('--problem')
        problem = args[i + 1] if i + 1 < len(args) else ''
        del args[i:i + 2]
    if problem not in ('small', 'large'):
        print('--problem must be small or large', file=sys.stderr)
        return 2
    if len(args) == 2 and args[0] == '--workspace':
        v = judge_workspace(args[1], problem)
        code = 0 if v['accepted'] else 1
    elif len(args) == 1 and not args[0].startswith('-'):
        v, code = judge_log(args[0])
    else:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    v['problem'] = problem
    if '--json' in argv:
        print(json.dumps(v))
    elif args[0] == '--workspace':
        print(f'{"accepted" if v["accepted"] else "not accepted"}: {v["reason"]}')
    else:
        print(v['reason'])
    return code


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
