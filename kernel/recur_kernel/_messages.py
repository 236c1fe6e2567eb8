"""``agent_message``: text between family members (parent, children, siblings).

The host derives the sender from the session token and enforces family scope; a send
outside it raises ``ScopeError`` (a ``PermissionError``).
"""


from . import _session


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
        reply = _session.long_poll("agent_message.recv", {}, lambda r: r.get("message") is not None, timeout)
        return None if reply is None else reply["message"]

    def __repr__(self):
        return "<agent_message: send(text, to='parent'|'child:<name>'|'sibling:<name>'), inbox(), recv(timeout=None)>"

