"""``final(value)``: mark this session's final answer; the host records it as an event."""

import json

from . import _session


def final(value):
    """Record ``value`` as the final answer: as JSON when it can be, else as ``str(value)``."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        value = str(value)
    return _session.call("final", {"value": value})
