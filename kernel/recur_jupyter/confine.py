"""How a session's sandbox is built: its policy, bubblewrap command line, mounts, ids and directories.

Shared by the kernel manager (sandbox.py, which the Jupyter server loads) and the launcher of
commands run because of what is in a workspace (job.py: jobs and gates), which must start quickly,
so nothing here imports Jupyter. sandbox.py says what a sandbox holds and why.
"""

import hashlib
import json
import os
import re
import subprocess
import sys


KEY = re.compile(r"^[0-9a-f]{32}$")
SYSTEM_DIRS = ("/usr", "/etc")
USR_LINKS = ("bin", "sbin", "lib", "lib64", "lib32")
UID_RANGE = 1 << 24
UID_BASE = 1 << 30
EGRESS_PORT = 3128


class SandboxError(RuntimeError):
    """The kernel cannot be started as its policy asks."""


def policy_key(env):
    name = os.path.basename((env or {}).get("JPY_SESSION_NAME", ""))
    if not KEY.match(name):
        raise SandboxError(f"refusing a kernel without a Recur session policy (session name {name!r})")
    return name


def load_policy(root, key):
    path = os.path.join(root, key, "policy.json")
    try:
        with open(path, encoding="utf-8") as f:
            policy = json.load(f)
    except (OSError, ValueError) as e:
        raise SandboxError(f"no readable sandbox policy at {path}: {e}") from e
    for field in ("workspace", "zmq", "bridge", "spool", "restore", "skills", "kernelPackage", "limits", "net"):
        if field not in policy:
            raise SandboxError(f"sandbox policy {path} lacks {field!r}")
    return policy


def sandbox_uid(key, base):
    return base + int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % UID_RANGE


def workspace_gid(policy, base):
    """One group per tree workspace: every kernel bound under it shares the ACL entry that grants access."""
    return sandbox_uid(policy.get("group", policy["workspace"]), base)


def sandbox_ids(key, policy, base):
    """The uid and gid a session's sandbox runs as: its own only when started by root, else ``(None, None)``."""
    if os.geteuid() != 0:
        return None, None
    return sandbox_uid(key, base), workspace_gid(policy, base)


def writable(policy):
    """The host directories the kernel's group is granted: its workspace, and what it shares (a worktree's
    repository, which it reads but cannot change: see ``git_mounts``)."""
    return [policy["workspace"], *policy.get("shared", [])]


def _gitdir_of(pointer):
    """The directory a ``.git`` pointer file names (``gitdir: X``, X relative to the file), or None."""
    try:
        with open(pointer, encoding="utf-8", errors="replace") as f:
            head = f.read(4096)
    except OSError:
        return None
    m = re.match(r"gitdir: *(.+)", head)
    if not m:
        return None
    target = os.path.realpath(os.path.join(os.path.dirname(pointer), m.group(1).strip()))
    return target if os.path.isdir(target) else None


def _commondir_of(gitdir):
    """A linked worktree's admin directory names the repository's own git directory in ``commondir``."""
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8", errors="replace") as f:
            rel = f.read(4096).strip()
    except OSError:
        return None
    common = os.path.realpath(os.path.join(gitdir, rel))
    return common if rel and os.path.isdir(common) else None


def _submodule_paths(workspace):
    """Where ``.gitmodules`` puts submodules, kept inside the workspace (the agent may have written the file)."""
    try:
        with open(os.path.join(workspace, ".gitmodules"), encoding="utf-8", errors="replace") as f:
            text = f.read(1 << 20)
    except OSError:
        return []
    inside = []
    for rel in re.findall(r"^\s*path\s*=\s*(.+?)\s*$", text, re.MULTILINE):
        path = os.path.realpath(os.path.join(workspace, rel))
        if path.startswith(workspace.rstrip("/") + "/"):
            inside.append(path)
    return inside


def git_mounts(policy):
    """Git's metadata the sandbox sees read-only, over the writable workspace: each ``.git`` (a directory,
    or a pointer file and the directories it names: a worktree's admin directory and its repository's),
    the workspace's and its submodules', and a worktree's shared repository. Hooks, config, attributes
    and refs written there would run later on the host, where git runs outside any sandbox; the agent's
    commits and branches go through the host instead (``git.commit``, ``git.branch``)."""
    bound = policy["workspace"]
    workspace = os.path.realpath(bound)

    def as_mounted(path):
        # Inside the workspace, a path is named under the workspace's path as the policy gives it,
        # which is where the sandbox mounts the workspace (it may differ from the real path).
        rel = os.path.relpath(path, workspace)
        return path if rel == ".." or rel.startswith("../") else os.path.normpath(os.path.join(bound, rel))

    paths = []
    for top in (workspace, *_submodule_paths(workspace)):
        dot = os.path.join(top, ".git")
        if os.path.islink(dot):
            target = os.path.realpath(dot)
            paths += [target] if os.path.exists(target) else []
        elif os.path.isdir(dot):
            paths.append(dot)
        elif os.path.isfile(dot):
            paths.append(dot)
            gitdir = _gitdir_of(dot)
            if gitdir:
                paths += [gitdir, *filter(None, [_commondir_of(gitdir)])]
    paths += [os.path.realpath(d) for d in policy.get("shared", []) if os.path.isdir(d)]
    seen = []
    for p in map(as_mounted, paths):
        if p not in seen:
            seen.append(p)
    return seen


def _python_dirs():
    """The interpreter's own tree and the venv's: both read-only, at their host paths."""
    dirs = {os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)}
    return sorted(d for d in dirs if not any(d.startswith(s + "/") for s in SYSTEM_DIRS))


def _knowledge_mounts(policy):
    """A research session's tier (docs/research-loop.md): the host's paper archive read-only over the
    workspace's ``papers/``, or, on a tier without it, that directory hidden under an empty read-only tmpfs."""
    papers = policy.get("papers")
    if not papers:
        return []
    if papers["from"]:
        return ["--ro-bind", papers["from"], papers["at"]]
    if os.path.isdir(papers["at"]):
        return ["--tmpfs", papers["at"], "--remount-ro", papers["at"]]
    return []


def _parents(path):
    """``--dir`` arguments for the parents of ``path``, world-traversable: bwrap makes them 0700."""
    out, cur = [], "/"
    for part in path.strip("/").split("/")[:-1]:
        cur = os.path.join(cur, part)
        out += ["--perms", "0755", "--dir", cur]
    return out


def bwrap_argv(kernel_cmd, connection_file, policy, uid=None, bwrap="bwrap", gid=None, extra_env=None, chdir=None):
    """The bubblewrap command line that runs ``kernel_cmd`` as the policy says.

    A job or a gate (recur_jupyter.job) has no ``connection_file``, ``extra_env`` is what it adds to
    the rebuilt environment and ``chdir`` where in the workspace it starts; the rest is the kernel's,
    so a job is confined exactly as its kernel is.
    """
    limits = policy["limits"]
    argv = [bwrap, "--die-with-parent", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net",
            "--unshare-cgroup-try"]
    if uid is None:
        argv.append("--unshare-user")
    for d in SYSTEM_DIRS:
        if os.path.isdir(d):
            argv += ["--ro-bind", d, d]
    for name in USR_LINKS:
        if os.path.islink(f"/{name}") or os.path.isdir(f"/usr/{name}"):
            argv += ["--symlink", f"usr/{name}", f"/{name}"]
    argv += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/tmp"]
    # The workspace first: any of the rest that lies inside it (a checkout of Recur itself) is mounted over it, read-only as ever.
    binds = [("--bind", policy["workspace"])]
    binds += [("--ro-bind", d) for d in git_mounts(policy)]
    binds += [("--ro-bind", d) for d in _python_dirs()]
    binds += [("--ro-bind", policy["kernelPackage"]), ("--bind", policy["zmq"]),
              ("--ro-bind", policy["bridge"]), ("--bind", policy["spool"]), ("--ro-bind", policy["restore"]),
              ("--ro-bind", policy["skills"])]
    for flag, path in binds:
        argv += _parents(path) + [flag, path, path]
    argv += _knowledge_mounts(policy)
    if connection_file is not None:
        # In the kernel's own directory, so its ready marker (recur_kernel._cells) outlives a restart.
        argv += ["--ro-bind", connection_file, kernel_connection_file(connection_file, policy)]
    argv += ["--clearenv", "--chdir", chdir or policy["workspace"]]
    env = {
        # First, git's wrapper: a write to the read-only .git fails naming the helpers that do it on the host.
        "PATH": f"{policy['kernelPackage']}/bin:/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp",
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "PYTHONPATH": os.path.dirname(policy["kernelPackage"]),
        "IPYTHONDIR": "/tmp/ipython",
        "MPLCONFIGDIR": "/tmp/matplotlib",
        "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        "RECUR_SANDBOX": "on",
        # The workspace belongs to someone else than the kernel's uid: git would refuse it as of dubious ownership.
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "safe.directory",
        "GIT_CONFIG_VALUE_0": "*",
        # The only way out is the egress proxy (recur_kernel._egress), whatever the session's policy.
        **{k: f"http://127.0.0.1:{EGRESS_PORT}" for k in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")},
        **{k: "localhost,127.0.0.1,::1" for k in ("NO_PROXY", "no_proxy")},
        **(extra_env or {}),
    }
    for k, v in env.items():
        argv += ["--setenv", k, v]
    # prlimit runs with the sandbox's root, so it may set hard limits; setpriv then drops to the
    # kernel's uid with no capabilities left, and no_new_privs (bwrap's) bars setuid binaries.
    if uid is not None:
        argv += ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    argv += [
        "prlimit",
        f"--as={limits['memoryBytes']}",
        f"--nproc={limits['processes']}",
        f"--nofile={limits['openFiles']}",
        f"--fsize={limits['fileBytes']}",
        "--",
    ]
    if uid is not None:
        argv += ["setpriv", f"--reuid={uid}", f"--regid={uid if gid is None else gid}", "--clear-groups",
                 "--inh-caps=-all", "--bounding-set=-all", "--"]
    if connection_file is None:
        return argv + list(kernel_cmd)
    inside = kernel_connection_file(connection_file, policy)
    return argv + [inside if a == connection_file else a for a in kernel_cmd]


def kernel_connection_file(connection_file, policy):
    return os.path.join(policy["zmq"], os.path.basename(connection_file))


def prepare_dirs(policy, uid, gid):
    """The kernel's own directories belong to it; its workspace stays its owner's, opened to the kernel's group."""
    os.makedirs(policy["workspace"], mode=0o700, exist_ok=True)
    for field in ("zmq", "spool"):
        os.makedirs(policy[field], mode=0o700, exist_ok=True)
        if uid is not None:
            os.chown(policy[field], uid, gid)
    if uid is not None:
        grant_group(writable(policy), gid)


def grant_group(paths, gid, setfacl="setfacl"):
    """rwX for ``gid`` on each tree, and the same as a default entry so what anyone creates there inherits it.

    A physical walk: a link inside the tree (the kernel may have made it) is not followed out of it.
    """
    entry = f"g:{gid}:rwX"
    try:
        done = subprocess.run([setfacl, "-R", "-P", "-m", f"{entry},d:{entry}", "--", *paths],
                              capture_output=True, text=True, check=False)
    except FileNotFoundError as e:
        raise SandboxError("setfacl is not installed (apt-get install acl; recur setup does it as root), "
                           "and a kernel run as root reaches its workspace through an ACL") from e
    if done.returncode != 0:
        raise SandboxError(f"cannot open the workspace to the kernel's group ({' '.join(paths)}): {done.stderr.strip()}")


def hand_back(paths, uid):
    """What the kernel's uid owns in its trees goes to each tree's owner; the group ACL keeps it shared."""
    for root in paths:
        try:
            owner = os.stat(root)
        except OSError:
            continue
        for top, dirs, files in os.walk(root):
            for name in [*dirs, *files]:
                path = os.path.join(top, name)
                try:
                    if os.lstat(path).st_uid == uid:
                        os.lchown(path, owner.st_uid, owner.st_gid)
                except OSError:
                    pass


