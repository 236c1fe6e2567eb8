"""Each Recur kernel in its own bubblewrap sandbox, started by the Jupyter server.

The worker writes a policy for the session (``<sandbox_root>/<key>/policy.json``: workspace,
the session's host-side directories, limits, network) before it asks the server for a kernel,
naming the Jupyter session ``<key>``; the server hands that name to the kernel manager as
``JPY_SESSION_NAME``. A kernel without a policy is refused, so no request can start an
unsandboxed one.

Inside, the kernel sees the system and the Python environment read-only, its workspace and a
private ``/tmp`` read-write, and its own directories under the home at their host paths (so the
worker and the kernel name them alike): ZeroMQ's ``ipc`` sockets, the bridge socket, the
snapshot spool (rw), restore and skills (ro). Nothing else of the home, the repository or
other sessions exists there. Its network namespace is empty, so ``ipc`` is its only channel to
the server, the bridge socket its only one to the worker, and the egress socket beside it (HTTP
proxy variables point at the kernel's forwarder of it) its only way out, decided per connection
by the worker. An agent's job (recur_jupyter.job) gets a sandbox built the same way, less the
connection file, in a namespace of its own where no forwarder listens.

Run as root, the kernel drops to a uid of its own (derived from the key): the kernel counts
processes per uid, and a user namespace would map the sandbox back to host root, whose processes
are never counted. Its group is derived from the tree's workspace, and that group gets read-write
access to the workspace through POSIX ACLs (access and default entries), so sessions sharing a
workspace edit each other's files and nothing else gains access; what a kernel created is handed
back to the workspace's owner when it stops (docs/workspace.md).
"""

import asyncio
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

from jupyter_client.ioloop import AsyncIOLoopKernelManager
from traitlets import Bool, Integer, Unicode

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
    workspace = os.path.realpath(policy["workspace"])
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
    for p in paths:
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


class SandboxedKernelManager(AsyncIOLoopKernelManager):
    """Starts each kernel as its session's policy says: in bubblewrap unless ``sandbox`` is off."""

    sandbox_root = Unicode(help="Directory of per-session sandbox policies (the worker writes them)").tag(config=True)
    sandbox = Bool(True, help="Wrap each kernel in bubblewrap; off runs it bare (RECUR_SANDBOX=off)").tag(config=True)
    uid_base = Integer(UID_BASE, help="Kernels started by root run as uid_base + a hash of their session, in group uid_base + a hash of their tree's workspace").tag(config=True)

    async def _async_pre_start_kernel(self, **kw):
        key = policy_key(kw.get("env"))
        self._recur_policy = load_policy(self.sandbox_root, key)
        self._recur_uid, self._recur_gid = sandbox_ids(key, self._recur_policy, self.uid_base) if self.sandbox else (None, None)
        if self.sandbox:
            # The ipc transport crosses the network namespace; sockets go where only this kernel's sandbox sees them.
            self.transport = "ipc"
            self.ip = os.path.join(self._recur_policy["zmq"], "k")
        kw["cwd"] = self._recur_policy["workspace"]
        # Off the server's event loop: on a large workspace the ACL walk takes a while, and every other kernel's traffic waits on that loop.
        await asyncio.to_thread(prepare_dirs, self._recur_policy, self._recur_uid, self._recur_gid)
        cmd, kw = await super()._async_pre_start_kernel(**kw)
        if not self.sandbox:
            return cmd, kw
        if self._recur_uid is not None:
            # Written 0600 by the server; the kernel reads it as its own uid.
            os.chown(self.connection_file, self._recur_uid, self._recur_gid)
        # ipykernel exits when its parent looks like init, which in a PID namespace it is.
        kw["env"] = {k: v for k, v in kw.get("env", {}).items() if k != "JPY_PARENT_PID"}
        if self.kernel_spec is not None:
            # A signal to bwrap's process group never reaches a kernel in its own PID namespace.
            self.kernel_spec.interrupt_mode = "message"
        bwrap = shutil.which("bwrap")
        if bwrap is None:
            raise SandboxError("bubblewrap (bwrap) is not installed: apt-get install bubblewrap, or set RECUR_SANDBOX=off")
        return bwrap_argv(cmd, self.connection_file, self._recur_policy, self._recur_uid, bwrap, self._recur_gid), kw

    async def _async_cleanup_resources(self, restart=False):
        await super()._async_cleanup_resources(restart=restart)
        if getattr(self, "_recur_uid", None) is not None:
            await asyncio.to_thread(hand_back, writable(self._recur_policy), self._recur_uid)
