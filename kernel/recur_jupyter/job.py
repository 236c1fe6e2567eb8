"""``python -m recur_jupyter.job [OPTIONS] ROOT KEY -- CMD...``: one command run because of what is in
a session's workspace (a run of an agent's job, a quality gate), in that session's sandbox.

The worker's job executor (activities/jobs/run-job.ts) and its gates (activities/run-gate.ts)
start each command this way. It is confined as the session's kernel is (sandbox.py): the policy
the worker wrote at ``ROOT/KEY/policy.json``, the same mounts (``.git`` read-only), limits, uid
and group, a cleared environment, and an empty network namespace of its own. It starts in the
workspace. This process becomes bubblewrap (exec), so the executor's kill of its process group
reaches the whole command.

Options:
  --egress         a forwarder listens at the proxy variables' address, as in the kernel, so the
                   command reaches the network by the session's policy, through the worker's
                   logging proxy and its approvals; without it the proxy variables lead nowhere.
  --cwd DIR        start in DIR, which must be the workspace or inside it.
  --env NAME=VALUE add NAME to the rebuilt environment (repeatable).
"""

import os
import re
import shutil
import sys

from .confine import KEY, UID_BASE, SandboxError, bwrap_argv, load_policy, prepare_dirs, sandbox_ids

# What the executor sets for one run; --clearenv drops everything else of this process's environment.
PASSED_ENV = ("RECUR_SEED",)
USAGE = "usage: python -m recur_jupyter.job [--egress] [--cwd DIR] [--env NAME=VALUE]... SANDBOX_ROOT KEY -- COMMAND..."
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def start_in(policy, cwd):
    """``cwd`` resolved, when it is the workspace or inside it; the sandbox sees nothing else to start in."""
    workspace = os.path.realpath(policy["workspace"])
    if cwd is None:
        return None
    real = os.path.realpath(cwd)
    if real != workspace and not real.startswith(workspace + "/"):
        raise SandboxError(f"{cwd} is not inside the session's workspace {workspace}: the sandbox sees only the workspace")
    # Named under the workspace's path as the policy gives it, which is where the sandbox mounts it.
    return os.path.normpath(os.path.join(policy["workspace"], os.path.relpath(real, workspace)))


def job_argv(policy, key, cmd, bwrap="bwrap", env=None, egress=False, cwd=None, setenv=None):
    """The bubblewrap command line for ``cmd``, and the uid and gid it runs as (None unless root)."""
    env = os.environ if env is None else env
    uid, gid = sandbox_ids(key, policy, UID_BASE)
    passed = {**{k: env[k] for k in PASSED_ENV if k in env}, **(setenv or {})}
    if egress:
        # The same forwarder the kernel runs, in front of the command, in the command's own namespace.
        forwarder = os.path.join(policy["kernelPackage"], "_egress.py")
        cmd = [sys.executable, "-I", "-S", forwarder, os.path.join(policy["bridge"], "egress"), "--", *cmd]
    return bwrap_argv(cmd, None, policy, uid, bwrap, gid, extra_env=passed, chdir=start_in(policy, cwd)), uid, gid


def parse(args):
    """(root, key, cmd, options), or None for a command line that is not one."""
    opts = {"egress": False, "cwd": None, "setenv": {}}
    args = list(args)
    while args and args[0].startswith("--") and args[0] != "--":
        flag = args.pop(0)
        if flag == "--egress":
            opts["egress"] = True
        elif flag == "--cwd" and args:
            opts["cwd"] = args.pop(0)
        elif flag == "--env" and args and "=" in args[0] and ENV_NAME.match(args[0].split("=", 1)[0]):
            name, value = args.pop(0).split("=", 1)
            opts["setenv"][name] = value
        else:
            return None
    if len(args) < 4 or args[2] != "--" or not KEY.match(args[1]):
        return None
    return args[0], args[1], args[3:], opts


def main(args):
    parsed = parse(args)
    if parsed is None:
        print(USAGE, file=sys.stderr)
        return 2
    root, key, cmd, opts = parsed
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        print("recur job: bubblewrap (bwrap) is not installed: apt-get install bubblewrap, or set RECUR_SANDBOX=off", file=sys.stderr)
        return 127
    try:
        policy = load_policy(root, key)
        argv, uid, gid = job_argv(policy, key, cmd, bwrap, **opts)
        # The kernel does the same at its start; a job may come first, or after the workspace changed.
        prepare_dirs(policy, uid, gid)
    except SandboxError as e:
        print(f"recur job: {e}", file=sys.stderr)
        return 126
    os.execv(bwrap, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
