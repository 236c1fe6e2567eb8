"""Recur's in-kernel package: binds a kernel to its agent session and gives agent code
``rlm``, ``agent_message``, ``final``, ``goal`` and ``schedule``, each a thin RPC to the host bridge.

The host's kernel client runs ``bind(...)`` silently at bootstrap; agent code never imports
this package itself. The op contract is in ``kernel/README.md``.
"""

import os

from . import _session
from ._errors import HostError, HostUnavailableError
from ._final import final
from ._goal import Goal
from ._messages import AgentMessage
from ._rlm import Rlm, RlmHandle
from ._schedule import Schedule

__all__ = ["bind", "binding_info", "call", "HostError", "HostUnavailableError", "RlmHandle"]

# For package code that adds agent APIs (harness edits, goals): one RPC as this session.
call = _session.call

# The only names bind() adds to the user's namespace.
AGENT_API = {"rlm": Rlm(), "agent_message": AgentMessage(), "final": final, "goal": Goal(), "schedule": Schedule()}

_fresh = None


def bind(url, session_id, token, env=None, user_ns=None):
    """Act as ``session_id`` towards the host at ``url``; put the agent API into ``user_ns``.

    Safe to run again (a worker that reconnects re-binds with a new url and token). The API
    names are also marked hidden so ``%who`` and namespace snapshots skip them.
    """
    global _fresh
    if env:
        os.environ.update({str(k): str(v) for k, v in env.items()})
    _fresh = _session.bind_client(url, session_id, token)
    shell = None
    if user_ns is None:
        from IPython import get_ipython

        shell = get_ipython()
        user_ns = shell.user_ns
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
    """``{session_id, fresh, pid}``: ``fresh`` is true when the last bind was this process's first."""
    return _BindingInfo({"session_id": _session.session_id(), "fresh": _fresh, "pid": os.getpid()})
