"""Which session this kernel process acts for. Set by ``bind`` at bootstrap, read by every call."""

import os
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
    """One RPC to the host as this kernel's session."""
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
