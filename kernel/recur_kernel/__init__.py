"""Recur's in-kernel package: binds a kernel to its agent session and gives agent code
``rlm``, ``agent_message``, ``harness``, ``final``, ``goal``, ``schedule``, ``jobs``, ``research`` and ``ledger``, each a thin RPC to the host bridge,
and ``files``, which works on the workspace in the kernel itself.

The host's kernel client runs ``bind(...)`` silently at bootstrap; agent code never imports
this package itself. The op contract is in ``kernel/README.md``.
"""

import os

from . import _cells, _egress, _session
from ._errors import ApprovalRefusedError, HostError, HostUnavailableError
from ._files import Files
from ._final import final
from ._harness import Harness, install_finder
from ._git import Git
from ._goal import Goal
from ._jobs import Jobs
from ._messages import AgentMessage
from ._rlm import Rlm, RlmHandle
from ._research import Ledger, Research
from ._schedule import Schedule

__all__ = ["bind", "binding_info", "call", "mark_ready", "resume_info", "ApprovalRefusedError", "HostError", "HostUnavailableError", "RlmHandle"]

# For package code that adds agent APIs (harness edits, goals): one RPC as this session.
call = _session.call

# The only names bind() adds to the user's namespace.
AGENT_API = {"rlm": Rlm(), "agent_message": AgentMessage(), "harness": Harness(), "final": final, "goal": Goal(), "schedule": Schedule(), "jobs": Jobs(), "research": Research(), "ledger": Ledger(), "files": Files(), "git": Git()}



def bind(url, session_id, token, env=None, user_ns=None):
    """Act as ``session_id`` towards the host at ``url``; put the agent API into ``user_ns``.

    Safe to run again (a worker that reconnects re-binds with a new url and token). The API
    names are also marked hidden so ``%who`` and namespace snapshots skip them.
    """
    if env:
        os.environ.update({str(k): str(v) for k, v in env.items()})
    _session.bind_client(url, session_id, token)
    # Only inside a sandbox: its network namespace has the port to itself.
    if os.environ.get("RECUR_SANDBOX") == "on" and _egress.socket_beside(url):
        _egress.start(_egress.socket_beside(url))
    install_finder()
    shell = None
    if user_ns is None:
        from IPython import get_ipython

        shell = get_ipython()
        user_ns = shell.user_ns
        _cells.install(shell)
    user_ns.update(AGENT_API)
    if shell is not None:
        shell.user_ns_hidden.update(AGENT_API)


class _BindingInfo:
    """Read back by the host through ``user_expressions``; ``_repr_json_`` gives it as JSON."""

    def __init__(self, data):
        self.data = data

    def _repr_json_(self):
        return self.data

    def __repr__(self):
        return repr(self.data)


def binding_info():
    """``{session_id, fresh, restarted, pid}``.

    ``fresh``: the host has not yet caught this namespace up with the log (``mark_ready``), so
    no agent cell has run in this process. ``restarted``: an earlier process of this kernel was
    ready and died, taking its namespace (and any cell it was running) with it.
    """
    return _BindingInfo({
        "session_id": _session.session_id(),
        "fresh": not _cells.is_ready(),
        "restarted": _cells.was_restarted(),
        "pid": os.getpid(),
    })


mark_ready = _cells.mark_ready


def resume_info(cell_id):
    """For a host retrying ``cell_id`` after losing its worker: is this namespace the one cells
    ran in (``ready``), did an earlier process of this kernel die (``restarted``), and what the
    cell sent back if this process ran it (``record``, None if it never received it)."""
    return _BindingInfo({
        "session_id": _session.session_id(),
        "ready": _cells.is_ready(),
        "restarted": _cells.was_restarted(),
        "record": _cells.record(cell_id),
    })
