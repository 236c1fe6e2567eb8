"""The 8-seed T* of a config, by the shipped judge's bisection (verify.t_star): the fewest
train_steps whose verdict clears the bar, where one step fewer does not (docs/research-task.md
keeps the numbers).

    python3 calibrate.py [--problem small|large] ['{"lr": 1.0, ...}']   # default: the shipped baseline
"""
import ast
import sys
import time

import verify


def main(argv):
    problem = 'small'
    if '--problem' in argv:
        i = argv.index('--problem')
        problem = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    config = ast.literal_eval(argv[0]) if argv else verify.BASELINE
    steps = verify.t_star(config, problem)
    started = time.perf_counter()
    v = verify.judge_config({**config, 'train_steps': steps}, problem) if steps else None
    took = time.perf_counter() - started
    print(f'{problem}: T* = {steps}' + (f', mean {v["mean"]:.5f}, one judge run {took:.3f} s' if v else ' (none)'))


if __name__ == '__main__':
    main(sys.argv[1:])
