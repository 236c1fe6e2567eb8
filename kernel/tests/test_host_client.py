"""Run with: python3 -m unittest discover -s kernel/tests (stdlib only, no Jupyter)."""

import contextlib
import io
import json
import os
import socketserver
import tempfile
import threading
import unittest
from http.server import BaseHTTPRequestHandler

import recur_kernel
from recur_kernel import _host, _rlm, _session
from recur_kernel._errors import HostError, HostUnavailableError, error_for
from recur_kernel._host import HostClient


class _UnixServer(socketserver.ThreadingUnixStreamServer):
    daemon_threads = True


def _socket_path():
    """A fresh path in a directory of its own (the bridge's layout: one socket per session)."""
    return os.path.join(tempfile.mkdtemp(prefix="bridge-"), "sock")


def _serve(handler, path=None):
    server = _UnixServer(path or _socket_path(), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"unix:{server.server_address}"


class _Bridge(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    calls = []
    connections = 0

    def setup(self):
        super().setup()
        _Bridge.connections += 1

    def address_string(self):
        return "kernel"

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Bridge.calls.append((self.headers["Authorization"], body))
        if body["op"] == "deny":
            status, reply = 403, {"error": {"name": "ScopeError", "message": "not family"}}
        else:
            status, reply = 200, {"result": {"op": body["op"], "args": body["args"]}}
        self.reply(status, reply)

    def reply(self, status, payload):
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


class _Asked(_Bridge):
    """Records each request's rid in its class's `rids`; `answer(n)` replies to the n-th."""

    rids = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).rids.append(body["rid"])
        self.answer(len(type(self).rids))


def _call_once(handler, op, args, **kw):
    """One call from a fresh client to a server of its own, both closed after it."""
    server, url = _serve(handler)
    client = HostClient(url, "s", "tok")
    try:
        return client.call(op, args, **kw)
    finally:
        client.close()
        server.shutdown()
        server.server_close()


class HostClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server, cls.url = _serve(_Bridge)

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()
        cls.server.server_close()

    def setUp(self):
        _Bridge.calls.clear()
        _Bridge.connections = 0

    def client(self, session="s"):
        client = HostClient(self.url, session, "tok")
        self.addCleanup(client.close)
        return client

    def test_posts_op_args_and_session_with_the_bearer_token(self):
        client = self.client("root/a")
        self.assertEqual(client.call("echo", {"x": 1}), {"op": "echo", "args": {"x": 1}})
        auth, body = _Bridge.calls[0]
        self.assertEqual(auth, "Bearer tok")
        self.assertEqual((body["op"], body["session"]), ("echo", "root/a"))

    def test_reuses_one_connection_per_thread(self):
        client = self.client()
        for _ in range(5):
            client.call("echo")
        self.assertEqual(_Bridge.connections, 1)

    def test_only_a_unix_socket_url_is_accepted(self):
        for url in ("http://127.0.0.1:1", "unix:relative/sock"):
            with self.assertRaises(ValueError):
                HostClient(url, "s", "tok")

    def test_an_error_reply_raises_an_exception_named_by_the_host(self):
        client = self.client()
        with self.assertRaises(PermissionError) as ctx:
            client.call("deny")
        err = ctx.exception
        self.assertIsInstance(err, HostError)
        self.assertEqual((type(err).__name__, err.status, str(err)), ("ScopeError", 403, "deny: not family"))

    def test_nan_is_refused_before_sending(self):
        with self.assertRaises(ValueError):
            self.client().call("echo", {"x": float("nan")})
        self.assertEqual(_Bridge.calls, [])


class ApiTest(unittest.TestCase):
    def test_error_classes_follow_the_status(self):
        self.assertIsInstance(error_for(404, "UnknownOpError", "m"), LookupError)
        self.assertIsInstance(error_for(400, "BadRequestError", "m"), ValueError)
        self.assertEqual(type(error_for(500, "not an identifier!", "m")).__name__, "HostError")

    def test_bind_adds_only_the_agent_api(self):
        ns = {}
        recur_kernel.bind(None, "test-session", None, user_ns=ns)
        self.assertEqual(sorted(ns), ["agent_message", "files", "final", "git", "goal", "harness", "jobs", "ledger", "research", "rlm", "schedule"])

    def test_result_polls_until_done_and_times_out(self):
        replies = iter([{"done": False}, {"done": True, "value": 7}])
        original = _session.call
        _session.call = lambda op, args=None, timeout=None: next(replies)
        try:
            self.assertEqual(_rlm.RlmHandle("c1", "n").result(), 7)
            _session.call = lambda op, args=None, timeout=None: {"done": False}
            with self.assertRaises(TimeoutError):
                _rlm.RlmHandle("c1", "n").result(timeout=0)
        finally:
            _session.call = original

    def test_rlm_sends_a_budget_slice_refuses_a_bad_one_and_says_when_it_was_capped(self):
        sent = []
        original = _session.call

        def fake(op, args=None, timeout=None):
            sent.append((op, args))
            return {"id": "r/a", "name": "a", "capped": "the slice was capped at what remains: 500 tokens asked, 300 remain"}

        _session.call = fake
        try:
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                handle = _rlm.Rlm()("t", name="a", budget_tokens=500, budget_usd=0.5)
            self.assertEqual(handle.id, "r/a")
            self.assertEqual((sent[0][1]["budget_tokens"], sent[0][1]["budget_usd"]), (500, 0.5))
            self.assertIn("[rlm a] the slice was capped at what remains", err.getvalue())
            for bad in ({"budget_tokens": 0}, {"budget_usd": -1}, {"budget_tokens": True}, {"budget_usd": "1"}):
                with self.assertRaises(ValueError):
                    _rlm.Rlm()("t", **bad)
            self.assertEqual(len(sent), 1)
        finally:
            _session.call = original
    def test_a_worktree_child_is_asked_for_and_merged_by_its_handle(self):
        calls = []
        original = _session.call
        _session.call = lambda op, args=None, timeout=None: calls.append((op, args)) or {"id": "r/w", "name": "w", "status": "merged", "files": []}
        try:
            h = _rlm.Rlm()("t", name="w", workspace="worktree")
            self.assertEqual(h.merge()["status"], "merged")
            with self.assertRaises(ValueError):
                _rlm.Rlm()("t", workspace="elsewhere")
        finally:
            _session.call = original
        self.assertEqual(calls, [
            ("rlm.spawn", {"task": "t", "name": "w", "model": None, "spec": None,
                           "budget_tokens": None, "budget_usd": None, "workspace": "worktree"}),
            ("rlm.merge", {"id": "r/w"}),
        ])


class HostRestartTest(unittest.TestCase):
    """The host's worker restarts at the same URL: a call in flight is retried with its rid."""

    def test_a_call_waits_for_the_host_to_come_back_and_keeps_its_rid(self):
        path = _socket_path()
        started = []

        def come_back():
            server = _UnixServer(path, _Bridge)
            started.append(server)
            server.serve_forever()

        _Bridge.calls.clear()
        timer = threading.Timer(0.8, come_back)
        timer.start()
        client = HostClient(f"unix:{path}", "s", "tok")
        try:
            self.assertEqual(client.call("rlm.list")["op"], "rlm.list")
        finally:
            client.close()
            while not started:
                threading.Event().wait(0.05)
            started[0].shutdown()
            timer.join()
            started[0].server_close()
        self.assertEqual(len(_Bridge.calls), 1)

    def test_a_retryable_503_is_asked_again_with_the_same_rid(self):
        class Flaky(_Asked):
            rids = []

            def answer(self, n):
                if n < 3:
                    self.reply(503, {"error": {"name": "RecurError", "message": "no worker yet"}})
                else:
                    self.reply(200, {"result": "ok"})

        self.assertEqual(_call_once(Flaky, "final", {"value": 1}), "ok")
        self.assertEqual(len(Flaky.rids), 3)
        self.assertEqual(len(set(Flaky.rids)), 1)

    def test_a_reply_that_comes_too_late_is_asked_again_with_the_same_rid(self):
        class Slow(_Asked):
            rids = []

            def answer(self, n):
                if n == 1:
                    # The first answer comes after the client has stopped waiting for it.
                    threading.Event().wait(1.5)
                self.reply(200, {"result": n})

        self.assertEqual(_call_once(Slow, "final", {"value": 1}, timeout=0.5), 2)
        self.assertEqual(len(Slow.rids), 2)
        self.assertEqual(len(set(Slow.rids)), 1)

    def test_a_socket_the_host_revoked_fails_at_once_as_unauthorized(self):
        path = _socket_path()
        open(os.path.join(os.path.dirname(path), "revoked"), "w").close()
        client = HostClient(f"unix:{path}", "s", "tok")
        try:
            with self.assertRaises(PermissionError) as caught:
                client.call("final", {"value": 1})
            self.assertEqual((caught.exception.status, str(caught.exception)), (401, "final: unknown or revoked session token"))
        finally:
            client.close()

    def test_a_host_that_stays_gone_is_reported_after_the_window(self):
        window = _host.RETRY_WINDOW_S
        _host.RETRY_WINDOW_S = 0.6
        client = HostClient(f"unix:{_socket_path()}", "s", "tok")
        try:
            with self.assertRaises(HostUnavailableError) as caught:
                client.call("rlm.list")
            self.assertIn("unreachable", str(caught.exception))
        finally:
            _host.RETRY_WINDOW_S = window
            client.close()


if __name__ == "__main__":
    unittest.main()
