import pickle
import unittest

from recur_kernel import _jobs, _session


class JobsTest(unittest.TestCase):
    def setUp(self):
        self.calls = []
        self.original = _session.call

        def fake(op, args=None, timeout=None):
            self.calls.append((op, args))
            job = {"id": (args or {}).get("id") or "job-1", "command": "python train.py", "status": "queued"}
            if op == "jobs.status" and (args or {}).get("id") is None:
                return [job]
            return "the output" if op == "jobs.logs" else job

        _session.call = fake

    def tearDown(self):
        _session.call = self.original

    def test_submit_returns_a_handle_that_is_the_jobs_dict_and_asks_again(self):
        h = _jobs.Jobs().submit("python train.py", cpus=2, seeds=(1, 2), timeout=60)
        self.assertEqual(self.calls[0], ("jobs.submit", {"command": "python train.py", "cpus": 2, "seeds": [1, 2], "timeout": 60}))
        self.assertEqual((h.id, h["status"]), ("job-1", "queued"))
        self.assertEqual(h.status(), "queued")
        self.assertEqual(h.logs(tail=5), "the output")
        self.assertIsInstance(h.cancel(), _jobs.JobHandle)
        self.assertEqual([c[0] for c in self.calls[1:]], ["jobs.status", "jobs.logs", "jobs.cancel"])
        self.assertEqual(self.calls[2][1], {"id": "job-1", "tail": 5})
        self.assertEqual(repr(h), "<job job-1 queued: 'python train.py'>")

    def test_ids_and_handles_are_taken_alike_and_a_handle_survives_a_snapshot(self):
        jobs = _jobs.Jobs()
        h = jobs.submit("true")
        jobs.cancel(h)
        jobs.status("job-1")
        self.assertEqual([c[1]["id"] for c in self.calls[1:]], ["job-1", "job-1"])
        self.assertEqual([type(j) for j in jobs.status()], [_jobs.JobHandle])
        self.assertEqual(pickle.loads(pickle.dumps(h)), h)


if __name__ == "__main__":
    unittest.main()
