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
import os
import shutil

from jupyter_client.ioloop import AsyncIOLoopKernelManager
from traitlets import Bool, Integer, Unicode

from .confine import (  # noqa: F401 (kept importable from here, where the manager uses them)
    KEY,
    SYSTEM_DIRS,
    USR_LINKS,
    UID_RANGE,
    UID_BASE,
    EGRESS_PORT,
    SandboxError,
    policy_key,
    load_policy,
    sandbox_uid,
    workspace_gid,
    sandbox_ids,
    writable,
    git_mounts,
    bwrap_argv,
    kernel_connection_file,
    prepare_dirs,
    grant_group,
    hand_back,
)


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
