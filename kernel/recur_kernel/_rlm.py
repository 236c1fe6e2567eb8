"""``rlm(task)``: spawn a sub-agent on the host and get a handle to its result.

Each method is one RPC; the host implements the semantics (child workflows, naming, depth).
Waiting is a loop of bounded long polls, so a long wait never pins one HTTP request.
"""

import asyncio
import sys

from . import _session

class RlmHandle:
    """A spawned sub-agent. ``h.result()`` blocks; ``await h`` waits without blocking other tasks."""

    def __init__(self, id, name):
        self.id = id
        self.name = name

    def status(self):
        """The host's status string for this sub-agent (e.g. ``running``, ``completed``, ``failed``)."""
        return _session.call("rlm.status", {"id": self.id})["status"]

    def result(self, timeout=None):
        """Wait for the sub-agent's final answer; raise TimeoutError after ``timeout`` seconds."""
        reply = _session.long_poll("rlm.result", {"id": self.id}, lambda r: bool(r.get("done")), timeout)
        if reply is not None:
            return reply.get("value")
        raise TimeoutError(f"sub-agent {self.name!r} not finished after {timeout} s")

    def merge(self):
        """Apply this sub-agent's change to this session's workspace: all of it, or nothing.

        Only for a sub-agent started with ``rlm(task, workspace="worktree")``. Returns
        ``{"status": "merged" | "unchanged", "files": [...]}``; when the two changed the same
        lines it raises ``MergeConflictError`` naming the files, and the workspace is as it was.
        Each merge brings what the sub-agent changed since the last one.
        """
        return _session.call("rlm.merge", {"id": self.id})

    def __await__(self):
        loop = asyncio.get_running_loop()
        return loop.run_in_executor(None, self.result).__await__()

    def __repr__(self):
        return f"<rlm {self.name!r} id={self.id!r}>"


class Rlm:
    """Callable ``rlm(task, name=None, model=None, spec=None, budget_tokens=None, budget_usd=None, workspace="shared")``
    plus ``rlm.list()`` and ``rlm.delete(name)``.

    ``budget_tokens`` / ``budget_usd`` give the sub-agent (and everything it spawns) a slice of the
    tree's budget. A slice larger than what remains is capped at what remains, and a note says so.

    ``workspace="shared"`` (the default): the sub-agent works in this session's workspace.
    ``workspace="worktree"``: in a git worktree of its own, made from this workspace as it is now;
    its changes reach this workspace only through ``h.merge()``.
    """

    def __call__(self, task, name=None, model=None, spec=None, budget_tokens=None, budget_usd=None, workspace="shared"):
        if not isinstance(task, str) or not task.strip():
            raise ValueError("rlm(task): task must be a non-empty string")
        for key, value in (("budget_tokens", budget_tokens), ("budget_usd", budget_usd)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0):
                raise ValueError(f"rlm({key}=...): must be a positive number, got {value!r}")
        if workspace not in ("shared", "worktree"):
            raise ValueError(f'rlm(workspace=...): "shared" or "worktree", not {workspace!r}')
        reply = _session.call(
            "rlm.spawn",
            {"task": task, "name": name, "model": model, "spec": spec,
             "budget_tokens": budget_tokens, "budget_usd": budget_usd, "workspace": workspace},
        )
        if reply.get("capped"):
            print(f"[rlm {reply['name']}] {reply['capped']}", file=sys.stderr)
        return RlmHandle(reply["id"], reply["name"])

    def list(self):
        """This session's sub-agents as the host reports them: ``[{id, name, status}, ...]``."""
        return _session.call("rlm.list", {})

    def delete(self, name):
        """Stop and forget the sub-agent called ``name``; its log is kept."""
        return _session.call("rlm.delete", {"name": name})

    def __repr__(self):
        return ("<rlm: rlm(task, name=None, model=None, spec=None, budget_tokens=None, budget_usd=None, "
                "workspace=\"shared\"|\"worktree\") -> handle (h.merge() for a worktree); rlm.list(); rlm.delete(name)>")
