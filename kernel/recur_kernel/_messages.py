"""``agent_message``: text between family members (parent, children, siblings).

The host derives the sender from the session token and enforces family scope; a send
outside it raises ``ScopeError`` (a ``PermissionError``).
"""

import time

from . import _session
from ._rlm import LONG_POLL_S, _HTTP_SLACK_S


class AgentMessage:
    def send(self, text, to="parent"):
        """Send ``text`` to ``"parent"``, ``"child:<name>"`` or ``"sibling:<name>"``; return the host's receipt."""
        if not isinstance(text, str):
            raise TypeError("agent_message.send(text): text must be a string")
        return _session.call("agent_message.send", {"to": to, "text": text})

    def inbox(self):
        """Messages delivered to this session and not yet returned by ``recv`` or ``inbox``."""
        return _session.call("agent_message.inbox", {})

    def recv(self, timeout=None):
        """Wait for the next message; return it, or ``None`` once ``timeout`` seconds pass."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = LONG_POLL_S if deadline is None else deadline - time.monotonic()
            wait = max(0.0, min(LONG_POLL_S, left))
            reply = _session.call(
                "agent_message.recv", {"wait": wait}, timeout=wait + _HTTP_SLACK_S
            )
            message = reply.get("message")
            if message is not None:
                return message
            if deadline is not None and time.monotonic() >= deadline:
                return None

    def __repr__(self):
        return "<agent_message: send(text, to='parent'|'child:<name>'|'sibling:<name>'), inbox(), recv(timeout=None)>"

