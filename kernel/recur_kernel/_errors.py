"""Exceptions raised in the kernel when the host refuses or fails an RPC.

The host sends ``{"error": {"name", "message"}}``; the exception raised here is named after
``name`` (so a traceback reads ``ScopeError: ...``) and also derives from the builtin that
matches the HTTP status, so agent code can write ``except PermissionError``.
"""


class HostError(RuntimeError):
    """Base of every error the host bridge reports."""

    def __init__(self, message, *, name="HostError", status=None, op=None):
        super().__init__(message)
        self.name = name
        self.status = status
        self.op = op


class HostUnavailableError(HostError, ConnectionError):
    """The host bridge could not be reached or sent a reply that is not JSON."""


class ApprovalRefusedError(HostError, PermissionError):
    """What the cell asked for needed an operator's yes and got a no (``recur deny``), or the
    approval policy refuses it outright. The message names the approval id, who decided and why."""


_STATUS_BASES = {
    400: ValueError,
    401: PermissionError,
    403: PermissionError,
    404: LookupError,
    408: TimeoutError,
    413: ValueError,
    415: ValueError,
    422: ValueError,
    # A limit (children per session, sessions per tree, message rate): refused like a permission.
    429: PermissionError,
    504: TimeoutError,
}

# Classes the host names that agent code may catch by name; any other name gets a class made on first use.
_classes = {("ApprovalRefusedError", PermissionError): ApprovalRefusedError}


def error_for(status, name, message, op=None):
    """Build the exception for an error reply (``name`` from the host, base from ``status``)."""
    base = _STATUS_BASES.get(status)
    if not (isinstance(name, str) and name.isidentifier()):
        name = "HostError"
    key = (name, base)
    cls = _classes.get(key)
    if cls is None:
        bases = (HostError,) if base is None else (HostError, base)
        cls = type(name, bases, {"__module__": __name__})
        _classes[key] = cls
    return cls(message, name=name, status=status, op=op)
