"""``python -m recur_jupyter.job ROOT KEY -- CMD...``: one command of an agent's job, in its session's sandbox.

The worker's job executor (activities/jobs/run-job.ts) starts each run of a job this way. It is
confined as the session's kernel is (sandbox.py): the policy the worker wrote at
``ROOT/KEY/policy.json``, the same mounts, limits, uid and group, a cleared environment, and an
empty network namespace of its own. No kernel forwarder listens there, so the proxy variables
lead nowhere: only a program that speaks to the egress socket itself gets out, by the session's
network policy, as the kernel's forwarder would. It starts in the workspace. This process
becomes bubblewrap (exec), so the executor's kill of its process group reaches the whole job.
"""

import os
import shutil
import sys

from .sandbox import KEY, UID_BASE, SandboxError, bwrap_argv, load_policy, prepare_dirs, sandbox_ids

# What the executor sets for one run; --clearenv drops everything else of this process's environment.
PASSED_ENV = ("RECUR_SEED",)
USAGE = "usage: python -m recur_jupyter.job SANDBOX_ROOT KEY -- COMMAND..."


def job_argv(policy, key, cmd, bwrap="bwrap", env=None):
    """The bubblewrap command line for ``cmd``, and the uid and gid it runs as (None unless root)."""
    env = os.environ if env is None else env
    uid, gid = sandbox_ids(key, policy, UID_BASE)
    passed = {k: env[k] for k in PASSED_ENV if k in env}
    return bwrap_argv(cmd, None, policy, uid, bwrap, gid, extra_env=passed), uid, gid


def main(args):
    if len(args) < 4 or args[2] != "--" or not KEY.match(args[1]):
        print(USAGE, file=sys.stderr)
        return 2
    root, key, cmd = args[0], args[1], args[3:]
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        print("recur job: bubblewrap (bwrap) is not installed: apt-get install bubblewrap, or set RECUR_SANDBOX=off", file=sys.stderr)
        return 127
    try:
        policy = load_policy(root, key)
        argv, uid, gid = job_argv(policy, key, cmd, bwrap)
        # The kernel does the same at its start; a job may come first, or after the workspace changed.
        prepare_dirs(policy, uid, gid)
    except SandboxError as e:
        print(f"recur job: {e}", file=sys.stderr)
        return 126
    os.execv(bwrap, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
