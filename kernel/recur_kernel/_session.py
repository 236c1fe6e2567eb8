"""Which session this kernel process acts for. Set by ``bind`` at bootstrap, read by every call."""

import os
import sys
import time

from ._host import HostClient

_client = None
_first_session = None


def bind_client(url, session_id, token):
    """Point every later host call at ``url`` as ``session_id``."""
    global _client, _first_session
    if _first_session is not None and session_id != _first_session:
        raise RuntimeError(
            f"kernel {os.getpid()} already belongs to session {_first_session!r}, not {session_id!r}"
        )
    _client = HostClient(url, session_id, token) if url else None
    _first_session = session_id


def session_id():
    return _first_session


def call(op, args=None, timeout=None):
    """One RPC to the host as this kernel's session.

    An op the approval policy holds answers with a pending approval instead of its result: the
    cell then waits for the operator (``_approvals.wait``) and calls the op again naming the
    approval, which the host answers with the op's result or ``ApprovalRefusedError``.
    """
    reply = _raw_call(op, args, timeout)
    pending = reply.get("$approval") if isinstance(reply, dict) else None
    if pending is None:
        return reply
    _await_operator(pending)
    return _raw_call(op, {**(args or {}), "approval": pending["id"]}, timeout)


def _await_operator(pending):
    """Wait, in bounded long polls, until the operator decides; each poll survives a host restart."""
    aid = pending["id"]
    print(
        f"[approval {aid}] waiting for an operator to allow {pending['kind']}: {pending['detail']}\n"
        f"  (recur approve {aid} | recur deny {aid} --reason ...)",
        file=sys.stderr,
        flush=True,
    )
    long_poll("approval.wait", {"id": aid}, lambda r: r["status"] != "pending")


def _raw_call(op, args, timeout):
    if _client is None:
        raise RuntimeError(f"{op}: this kernel is not connected to a Recur host")
    if timeout is None:
        return _client.call(op, args)
    return _client.call(op, args, timeout=timeout)


# The host holds a long-poll request at most this long before answering "not yet".
LONG_POLL_S = 30.0
_HTTP_SLACK_S = 30.0


def long_poll(op, args, ready, timeout=None):
    """Repeat bounded long polls of ``op`` until ``ready(reply)`` or ``timeout`` seconds pass.

    Returns the ready reply, or None on timeout; no single HTTP request is held for long.
    """
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        left = LONG_POLL_S if deadline is None else deadline - time.monotonic()
        wait = max(0.0, min(LONG_POLL_S, left))
        reply = call(op, {**args, "wait": wait}, timeout=wait + _HTTP_SLACK_S)
        if ready(reply):
            return reply
        if deadline is not None and time.monotonic() >= deadline:
            return None
