"""The kernel side of approvals: an op the policy holds is waited on and called again (no host needed)."""

import contextlib
import io
import unittest

from recur_kernel import ApprovalRefusedError, HostError, _session
from recur_kernel._errors import error_for


class _ScriptedClient:
    """Answers each call with the next reply for its op, recording (op, args)."""

    def __init__(self, replies):
        self.replies = {op: list(rs) for op, rs in replies.items()}
        self.calls = []

    def call(self, op, args=None, timeout=None):
        self.calls.append((op, args))
        reply = self.replies[op].pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply


class ApprovalWaitTest(unittest.TestCase):
    def setUp(self):
        self.addCleanup(setattr, _session, "_client", _session._client)

    def client(self, **replies):
        fake = _ScriptedClient(replies)
        _session._client = fake
        return fake

    def test_a_pending_op_waits_for_the_decision_then_calls_again_naming_the_approval(self):
        pending = {"$approval": {"id": "s1/7", "kind": "harness-global", "detail": "create memory"}}
        fake = self.client(**{
            "harness.edit": [pending, {"result": "applied"}],
            "approval.wait": [{"status": "pending"}, {"status": "approved"}],
        })
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            out = _session.call("harness.edit", {"name": "n"})
        self.assertEqual(out, {"result": "applied"})
        self.assertEqual([op for op, _ in fake.calls], ["harness.edit", "approval.wait", "approval.wait", "harness.edit"])
        self.assertEqual(fake.calls[1][1]["id"], "s1/7")
        self.assertEqual(fake.calls[-1][1], {"name": "n", "approval": "s1/7"})
        self.assertIn("recur approve s1/7", err.getvalue())

    def test_a_denial_reaches_the_cell_as_approval_refused_error(self):
        denied = error_for(403, "ApprovalRefusedError", "harness.edit: harness-global denied by ops: no", op="harness.edit")
        self.client(**{
            "harness.edit": [{"$approval": {"id": "s1/3", "kind": "harness-global", "detail": "d"}}, denied],
            "approval.wait": [{"status": "denied"}],
        })
        with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(ApprovalRefusedError) as caught:
            _session.call("harness.edit", {})
        self.assertIsInstance(caught.exception, PermissionError)
        self.assertIsInstance(caught.exception, HostError)
        self.assertIn("denied by ops", str(caught.exception))

    def test_a_plain_reply_is_returned_as_is(self):
        fake = self.client(**{"rlm.list": [[{"id": "c"}]]})
        self.assertEqual(_session.call("rlm.list"), [{"id": "c"}])
        self.assertEqual(len(fake.calls), 1)


if __name__ == "__main__":
    unittest.main()
