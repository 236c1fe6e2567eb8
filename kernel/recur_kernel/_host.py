"""The kernel's client for the host bridge: one JSON POST to ``/rpc`` per call, over the
session's Unix socket (``unix:<path>``, the only channel out of the kernel's sandbox).

Uses ``http.client`` rather than ``urllib`` so each thread keeps one connection alive (0.4 ms
per call instead of 0.8 ms). A connection idle longer than ``_REUSE_IDLE_S`` is replaced
before use, well inside the bridge's keep-alive timeout, so a kept-alive socket is never
closed by the host mid-request.

The host's worker may be restarted (crash, upgrade) while a cell runs. It comes back at the same
URL and honours the same token, so a call that finds the host gone, or that the host answers
with 503 (retryable: e.g. no worker is serving the session's workflow yet), is retried for a
while with the same ``rid``; the host uses the rid to make every op that changes anything
happen once.
"""

import errno
import http.client
import json
import os
import socket
import threading
import time
import urllib.parse

from ._errors import HostUnavailableError, error_for

DEFAULT_TIMEOUT_S = 60.0
_REUSE_IDLE_S = 10.0
# Long enough for a worker to be noticed dead, restarted and bundled; short enough that an agent
# whose host is really gone hears about it.
RETRY_WINDOW_S = 180.0


class _HostGone(Exception):
    """The connection failed before a reply: worth retrying with the same rid."""


# The socket is missing or refused while the worker that listens on it restarts.
_GONE_ERRNOS = {errno.ENOENT, errno.ECONNREFUSED}


class _Revoked(Exception):
    """The host closed this session's socket for good (a ``revoked`` mark beside it)."""


# What the host answers a revoked token, so both read alike in the cell.
_REVOKED_REPLY = json.dumps({"error": {"name": "UnauthorizedError", "message": "unknown or revoked session token"}}).encode()


class _UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path, timeout):
        super().__init__("localhost", timeout=timeout)
        self._socket_path = path

    def connect(self):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self._socket_path)
        except OSError as e:
            sock.close()
            if e.errno in _GONE_ERRNOS:
                if os.path.exists(os.path.join(os.path.dirname(self._socket_path), "revoked")):
                    raise _Revoked() from e
                raise ConnectionRefusedError(e.errno, e.strerror) from e
            raise
        self.sock = sock


class HostClient:
    """Calls ops on the host as one session, authenticated by that session's bearer token."""

    def __init__(self, url, session_id, token):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "unix" or not parts.path.startswith("/"):
            raise ValueError(f"host url must be unix:/absolute/socket/path, got {url!r}")
        self.url = url
        self.session_id = session_id
        self._socket_path = parts.path
        self._path = "/rpc"
        self._headers = {
            "Content-Type": "application/json",
            "Authorization": f"Bearer {token}",
        }
        self._local = threading.local()

    def call(self, op, args=None, timeout=DEFAULT_TIMEOUT_S):
        """Run ``op`` on the host and return its result; raise a HostError subclass on refusal."""
        body = json.dumps(
            {"op": op, "args": args or {}, "session": self.session_id, "rid": os.urandom(8).hex()},
            allow_nan=False,
        ).encode()
        status, raw = self._post_retrying(body, timeout)
        try:
            reply = json.loads(raw) if raw else {}
        except ValueError:
            raise HostUnavailableError(f"{op}: host sent a non-JSON reply (HTTP {status})", op=op)
        if status == 200:
            return reply.get("result")
        err = reply.get("error") if isinstance(reply, dict) else None
        if not isinstance(err, dict):
            err = {"name": "HostError", "message": f"HTTP {status}"}
        raise error_for(status, err.get("name"), f"{op}: {err.get('message', '')}", op=op)

    def close(self):
        """Close this thread's kept-alive connection."""
        self._drop()

    def _post_retrying(self, body, timeout):
        """POST until a reply other than 503 or the retry window ends; the last reply is returned."""
        deadline = time.monotonic() + RETRY_WINDOW_S
        pause = 0.25
        while True:
            try:
                status, raw = self._post(body, timeout)
                if status != 503 or time.monotonic() + pause > deadline:
                    return status, raw
            except _HostGone as gone:
                if time.monotonic() + pause > deadline:
                    raise HostUnavailableError(
                        f"host bridge at {self.url} unreachable for {RETRY_WINDOW_S:.0f}s: {gone.__cause__}"
                    ) from gone.__cause__
            time.sleep(pause)
            pause = min(pause * 2, 2.0)

    def _post(self, body, timeout):
        conn = self._connection(timeout)
        try:
            conn.request("POST", self._path, body=body, headers=self._headers)
            resp = conn.getresponse()
            raw = resp.read()
        except _Revoked:
            self._drop()
            return 401, _REVOKED_REPLY
        except (ConnectionError, http.client.HTTPException, TimeoutError) as e:
            # Refused, reset or closed without a reply: the host process is gone or restarting. No
            # reply in time: a host busy (a worker restarting under the session) is asked again, not
            # given up on; every op that changes anything answers a repeat by its rid once.
            self._drop()
            raise _HostGone() from e
        except OSError as e:
            self._drop()
            raise HostUnavailableError(f"host bridge at {self.url} unreachable: {e}") from e
        except BaseException:
            # KeyboardInterrupt mid-request leaves the socket in an unknown state.
            self._drop()
            raise
        self._local.last_used = time.monotonic()
        if resp.will_close:
            self._drop()
        return resp.status, raw

    def _connection(self, timeout):
        conn = getattr(self._local, "conn", None)
        idle = time.monotonic() - getattr(self._local, "last_used", 0.0)
        if conn is not None and idle > _REUSE_IDLE_S:
            self._drop()
            conn = None
        if conn is None:
            conn = _UnixHTTPConnection(self._socket_path, timeout)
            self._local.conn = conn
        else:
            conn.timeout = timeout
            if conn.sock is not None:
                conn.sock.settimeout(timeout)
        return conn

    def _drop(self):
        conn = getattr(self._local, "conn", None)
        self._local.conn = None
        if conn is not None:
            conn.close()
