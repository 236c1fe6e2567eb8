"""A ledger of the agent cells this kernel received, with what each one sent back.

A worker that dies mid-cell leaves the cell running here. Its retry must not run the cell again
and must not lose its output, so the kernel itself keeps, per cell id (sent by the host in the
execute request's metadata as ``recur_cell``), every output message and the reply. The retry
asks with a silent request; the shell channel is serial, so that request is answered only after
the cell has finished, and the record is then complete.

Capture wraps the kernel's ``Session.send``: stream, display, result and error messages, and
the execute reply, all pass through it whatever thread flushes them.
"""

import atexit
import os
import threading
import time
from collections import OrderedDict

# Cells kept; a retry only ever asks for the last one.
_KEEP = 8
# Output kept per cell; past it the record says how much was dropped.
_MAX_CHARS = 4 * 1024 * 1024
_OUTPUT_TYPES = {"stream", "display_data", "execute_result", "error"}

_lock = threading.Lock()
_cells = OrderedDict()
_by_msg = {}
_installed = False
_ready = False


def install(shell):
    """Start recording cells that carry a ``recur_cell`` id. Safe to call again."""
    global _installed
    if _installed or shell is None or not hasattr(shell, "kernel"):
        return
    kernel = shell.kernel
    session = kernel.session
    original = session.send

    def send(stream, msg_or_type, content=None, parent=None, *args, **kwargs):
        try:
            _record(msg_or_type, content, parent)
        except Exception:  # recording must never break the kernel's own messaging
            pass
        return original(stream, msg_or_type, content, parent, *args, **kwargs)

    session.send = send
    shell.events.register("pre_run_cell", lambda info: _begin(kernel))
    _installed = True


def _begin(kernel):
    parent = kernel.get_parent("shell") or {}
    cell_id = (parent.get("metadata") or {}).get("recur_cell")
    msg_id = (parent.get("header") or {}).get("msg_id")
    if not cell_id or not msg_id:
        return
    with _lock:
        _cells[cell_id] = {"outputs": [], "reply": None, "chars": 0, "dropped": 0, "t0": time.monotonic(), "ms": None}
        _by_msg[msg_id] = cell_id
        while len(_cells) > _KEEP:
            _cells.popitem(last=False)
        live = set(_cells)
        for m in [m for m, c in _by_msg.items() if c not in live]:
            del _by_msg[m]


def _record(msg_or_type, content, parent):
    if isinstance(msg_or_type, dict):
        msg_type = (msg_or_type.get("header") or {}).get("msg_type") or msg_or_type.get("msg_type")
        content = msg_or_type.get("content")
        parent_id = (msg_or_type.get("parent_header") or {}).get("msg_id")
    else:
        msg_type = msg_or_type
        header = (parent or {}).get("header", parent) or {}
        parent_id = header.get("msg_id")
    if parent_id is None or (msg_type not in _OUTPUT_TYPES and msg_type != "execute_reply"):
        return
    with _lock:
        cell = _cells.get(_by_msg.get(parent_id))
        if cell is None:
            return
        if msg_type == "execute_reply":
            cell["reply"] = content
            cell["ms"] = round((time.monotonic() - cell["t0"]) * 1000)
            return
        size = len(repr(content))
        if cell["chars"] + size > _MAX_CHARS:
            cell["dropped"] += size
            return
        cell["chars"] += size
        cell["outputs"].append({"msg_type": msg_type, "content": content})


def record(cell_id):
    """The cell's outputs and reply, or None if this kernel process never received it."""
    with _lock:
        cell = _cells.get(cell_id)
        if cell is None:
            return None
        return {
            "outputs": list(cell["outputs"]),
            "reply": cell["reply"],
            "dropped": cell["dropped"],
            "duration_ms": cell["ms"],
        }


# A kernel the Jupyter server restarted after it died has the same connection file as the one
# that died. The marker beside it survives the death (atexit does not run on SIGKILL) and says
# "this kernel id was serving a session before", which the new process's memory cannot.
def _marker():
    try:
        from ipykernel.kernelapp import IPKernelApp

        if not IPKernelApp.initialized():
            return None
        path = IPKernelApp.instance().abs_connection_file
        return f"{path}.recur-ready" if path else None
    except Exception:
        return None


def mark_ready():
    """The host caught this namespace up with the log (or it is a first cell): agent cells may run."""
    global _ready
    _ready = True
    path = _marker()
    if path and not os.path.exists(path):
        with open(path, "w"):
            pass
        atexit.register(lambda: os.path.exists(path) and os.remove(path))


def is_ready():
    return _ready


def was_restarted():
    """True when an earlier process of this kernel id was ready: it died with its namespace."""
    path = _marker()
    return not _ready and bool(path) and os.path.exists(path)
