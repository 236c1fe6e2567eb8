"""Namespace snapshots without a kernel: a dict stands in for IPython's user_ns.

Run with the kernel venv (cloudpickle and dill): PYTHONPATH=kernel <venv>/bin/python -m unittest discover -s kernel/tests
"""

import os
import pickle
import shutil
import tempfile
import threading
import unittest

from recur_kernel import _blobs, _session, _snapshot

NAMESPACE = """
import math, threading
x = 41
data = {"a": [1, 2, 3], "s": "text"}
def f(n):
    return n + x
class C:
    def __init__(self, v):
        self.v = v
    def twice(self):
        return helper(self.v) * 2
def helper(v):
    return v
obj = C(5)
sq = lambda n: n * n
gen = (i for i in range(3))
lock = threading.Lock()
_private = 3
"""

# Unpickling this sets a flag: proof that a blob was (or was not) loaded.
EXPLOITED = []


class _Exploit:
    def __reduce__(self):
        return (EXPLOITED.append, ("ran",))


def setUpModule():
    try:
        import cloudpickle  # noqa: F401
        import dill  # noqa: F401
    except ImportError as e:
        raise RuntimeError(f"{e}: run these tests with the kernel venv's python (<toolsDir>/venv/bin/python)") from e


def namespace(code=NAMESPACE):
    ns = {"__name__": "__main__"}
    exec(code, ns)
    return ns


class SnapshotTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="recur-snap-")
        self.addCleanup(shutil.rmtree, self.root)
        _snapshot._carried.clear()
        _snapshot._aliases.clear()

    def snap(self, ns, **limits):
        return _snapshot.snapshot(self.root, user_ns=ns, hidden=limits.pop("hidden", {}), **limits)

    def entries(self, manifest):
        return {v["name"]: v for v in manifest["variables"]}

    def restore_into_fresh(self, manifest):
        ns = {"__name__": "__main__"}
        return ns, _snapshot.restore(manifest, self.root, user_ns=ns)

    def test_plain_data_uses_pickle_and_namespace_code_uses_cloudpickle_and_a_lock_needs_dill(self):
        m = self.snap(namespace())
        picklers = {name: v["pickler"] for name, v in self.entries(m).items()}
        self.assertEqual(picklers, {"x": "pickle", "data": "pickle", "f": "cloudpickle", "C": "cloudpickle",
                                    "helper": "cloudpickle", "obj": "cloudpickle", "sq": "cloudpickle", "lock": "dill"})
        self.assertEqual(m["modules"], [{"name": "math", "module": "math"}, {"name": "threading", "module": "threading"}])
        self.assertEqual(set(m["picklers"]), {"pickle", "cloudpickle", "dill"})

    def test_each_blob_is_stored_under_its_sha256(self):
        m = self.snap(namespace())
        for v in m["variables"]:
            path = os.path.join(self.root, "sha256", v["sha256"][:2], v["sha256"])
            with open(path, "rb") as f:
                data = f.read()
            self.assertEqual((_blobs.sha256_hex(data), len(data)), (v["sha256"], v["size"]))
        self.assertEqual(m["bytes"], sum(v["size"] for v in m["variables"]))

    def test_restore_brings_back_values_and_working_functions_classes_and_instances(self):
        ns, result = self.restore_into_fresh(self.snap(namespace()))
        self.assertEqual(result["failed"], [])
        self.assertEqual(set(result["restored"]), {"math", "threading", "x", "data", "f", "C", "helper", "obj", "sq", "lock"})
        self.assertEqual((ns["x"], ns["data"]), (41, {"a": [1, 2, 3], "s": "text"}))
        self.assertEqual((ns["f"](1), ns["sq"](4), ns["obj"].twice(), ns["C"](2).twice()), (42, 16, 10, 4))
        self.assertIsInstance(ns["obj"], ns["C"])
        self.assertTrue(ns["lock"].acquire(blocking=False))  # dill restores a new, unlocked lock

    def test_restored_functions_read_the_live_namespace_not_a_private_copy(self):
        ns, _ = self.restore_into_fresh(self.snap(namespace()))
        self.assertIs(ns["f"].__globals__, ns)
        ns["x"] = 100
        self.assertEqual(ns["f"](1), 101)
        ns["helper"] = lambda v: -v
        self.assertEqual(ns["obj"].twice(), -10)

    def test_unpicklable_values_are_reported_with_type_and_error_and_the_rest_is_saved(self):
        ns = namespace("import socket, threading, sqlite3\n"
                       "g = (i for i in range(3))\nsock = socket.socket()\nconn = sqlite3.connect(':memory:')\n"
                       "fh = open('/dev/null')\nok = 1")
        self.addCleanup(ns["sock"].close)
        self.addCleanup(ns["fh"].close)
        m = self.snap(ns)
        reasons = {u["name"]: u["reason"] for u in m["unsaved"]}
        self.assertEqual(set(reasons), {"g", "sock", "conn", "fh"})
        self.assertTrue(reasons["g"].startswith("generator: TypeError: cannot pickle 'generator' object"))
        self.assertIn("socket: Refused: cannot snapshot an open socket", reasons["sock"])
        self.assertIn("Connection: TypeError", reasons["conn"])
        self.assertIn("TextIOWrapper: Refused", reasons["fh"])
        self.assertEqual(list(self.entries(m)), ["ok"])

    def test_in_memory_streams_are_saved_unlike_open_files(self):
        ns = namespace("import io\nbuf = io.BytesIO(b'abc')\ntext = io.StringIO('xyz')")
        fresh, result = self.restore_into_fresh(self.snap(ns))
        self.assertEqual(result["failed"], [])
        self.assertEqual((fresh["buf"].getvalue(), fresh["text"].getvalue()), (b"abc", "xyz"))

    def test_a_variable_over_the_per_variable_limit_is_skipped_with_a_lower_bound_size(self):
        ns = namespace("small = b'x' * 100\nbig = b'y' * 300_000")
        m = self.snap(ns, max_variable_bytes=100_000)
        self.assertEqual(list(self.entries(m)), ["small"])
        [over] = m["oversize"]
        self.assertEqual((over["name"], over["limit"]), ("big", "variable"))
        self.assertGreater(over["size"], 100_000)

    def test_the_total_limit_skips_variables_that_no_longer_fit_and_keeps_smaller_later_ones(self):
        ns = namespace("a = b'a' * 600\nb = b'b' * 600\nc = b'c' * 10")
        m = self.snap(ns, max_total_bytes=1000)
        self.assertEqual(list(self.entries(m)), ["a", "c"])
        self.assertEqual([(o["name"], o["limit"]) for o in m["oversize"]], [("b", "total")])
        self.assertLessEqual(m["bytes"], 1000)

    def test_an_unchanged_namespace_writes_no_new_blobs_before_or_after_a_restore(self):
        ns = namespace()
        first = self.snap(ns)
        self.assertEqual(first["written"], len(first["variables"]))
        second = self.snap(ns)
        self.assertEqual((second["written"], second["variables"]), (0, first["variables"]))
        restored_ns, _ = self.restore_into_fresh(first)
        again = self.snap(restored_ns)
        self.assertEqual((again["written"], again["variables"]), (0, first["variables"]))
        restored_ns["x"] = 7
        changed = self.snap(restored_ns)
        self.assertEqual(changed["written"], 1)
        self.assertNotEqual(self.entries(changed)["x"]["sha256"], self.entries(first)["x"]["sha256"])

    def test_a_blob_the_host_holds_already_is_not_written_to_a_spool_it_emptied(self):
        ns = namespace("x = 1\ny = [2]")
        first = self.snap(ns)
        shutil.rmtree(os.path.join(self.root, "sha256"))
        ns["y"].append(3)
        second = self.snap(ns, stored=frozenset(v["sha256"] for v in first["variables"]))
        self.assertEqual(second["written"], 1)
        self.assertEqual(self.entries(second)["x"], self.entries(first)["x"])
        on_disk = {name for _, _, names in os.walk(self.root) for name in names}
        self.assertEqual(on_disk, {self.entries(second)["y"]["sha256"]})

    def test_a_tampered_blob_is_refused_before_it_is_unpickled(self):
        m = self.snap(namespace("x = 1\ny = 2"))
        entry = self.entries(m)["x"]
        path = os.path.join(self.root, "sha256", entry["sha256"][:2], entry["sha256"])
        os.chmod(path, 0o644)
        with open(path, "wb") as f:
            f.write(pickle.dumps(_Exploit()))
        EXPLOITED.clear()
        ns, result = self.restore_into_fresh(m)
        self.assertEqual(EXPLOITED, [])
        self.assertEqual(result["restored"], ["y"])
        [failure] = result["failed"]
        self.assertEqual(failure["name"], "x")
        self.assertIn("does not match its hash", failure["reason"])
        self.assertNotIn("x", ns)

    def test_putting_the_right_bytes_heals_a_corrupted_blob(self):
        data = b"pickled bytes" * 100
        sha256, _, _ = _blobs.put(self.root, data)
        path = _blobs.path_of(self.root, sha256)
        for corrupt in (b"tampered", b"P" + data[1:]):
            with open(path, "wb") as f:
                f.write(corrupt)
            with self.assertRaises(_blobs.BlobError):
                _blobs.get(self.root, sha256)
            self.assertEqual(_blobs.put(self.root, data), (sha256, len(data), True))
            self.assertEqual(_blobs.get(self.root, sha256), data)
        self.assertEqual(_blobs.put(self.root, data), (sha256, len(data), False))

    def test_a_missing_blob_or_module_fails_alone(self):
        m = self.snap(namespace("x = 1\ny = 2"))
        m["modules"].append({"name": "gone", "module": "no_such_module_recur"})
        entry = self.entries(m)["y"]
        os.unlink(os.path.join(self.root, "sha256", entry["sha256"][:2], entry["sha256"]))
        ns, result = self.restore_into_fresh(m)
        self.assertEqual(result["restored"], ["x"])
        reasons = {f["name"]: f["reason"] for f in result["failed"]}
        self.assertIn("ModuleNotFoundError", reasons["gone"])
        self.assertIn("missing", reasons["y"])

    def test_names_that_failed_to_restore_are_carried_into_later_snapshots_until_reassigned(self):
        m = self.snap(namespace("x = 1\ny = 2"))
        m["modules"].append({"name": "gone", "module": "no_such_module_recur"})
        y = self.entries(m)["y"]
        os.unlink(os.path.join(self.root, "sha256", y["sha256"][:2], y["sha256"]))
        ns, _ = self.restore_into_fresh(m)
        later = self.snap(ns)
        self.assertEqual(self.entries(later)["y"], dict(y, carried=True))
        self.assertEqual(later["modules"], [{"name": "gone", "module": "no_such_module_recur", "carried": True}])
        ns["y"] = 3
        self.assertNotIn("carried", self.entries(self.snap(ns))["y"])

    def test_hidden_ipython_and_underscore_names_are_skipped_unless_rebound(self):
        api = object()
        ns = namespace("x = 1\n_y = 2\nIn = []\nOut = {}")
        ns.update(rlm=api, agent_message=object())
        m = self.snap(ns, hidden={"rlm": api, "agent_message": "another object"})
        self.assertEqual(sorted(self.entries(m)), ["agent_message", "x"])

    def test_snapshot_and_restore_leave_no_names_of_their_own(self):
        ns = namespace("x = 1\ndef f():\n    return x")
        before = set(ns)
        m = self.snap(ns)
        self.assertEqual(set(ns), before)
        fresh, result = self.restore_into_fresh(m)
        self.assertEqual(set(fresh), {"__name__", "x", "f"} | ({"__builtins__"} & set(fresh)))
        self.assertEqual(set(result["restored"]), {"x", "f"})

    def test_shared_references_between_variables_come_back_as_copies(self):
        ns = namespace("a = [1]\nb = {'k': a}\nc = [a, a]")
        fresh, _ = self.restore_into_fresh(self.snap(ns))
        self.assertEqual(fresh["b"], {"k": [1]})
        self.assertIsNot(fresh["b"]["k"], fresh["a"])  # duplicated across variables (documented)
        self.assertIs(fresh["c"][0], fresh["c"][1])  # shared within one variable: kept

    def patch(self, obj, name, value):
        self.addCleanup(setattr, obj, name, getattr(obj, name))
        setattr(obj, name, value)

    def test_a_process_not_bound_to_the_session_is_not_snapshotted(self):
        import json

        self.patch(_snapshot, "_shell_namespace", lambda: (namespace("x = 1"), {}))
        for bound in (None, "root/other"):
            self.patch(_session, "session_id", lambda: bound)
            args = {"session_id": "root/a", "blobs_root": self.root}
            self.assertEqual(_snapshot.snapshot_for_host(json.dumps(args))._repr_json_(), {"unbound": bound})
        self.assertFalse(os.path.exists(os.path.join(self.root, "sha256")))

    def test_the_host_entry_points_take_json_and_answer_through_repr_json(self):
        import json

        ns = namespace("x = 1")
        self.patch(_snapshot, "_shell_namespace", lambda: (ns, {}))
        self.patch(_session, "session_id", lambda: "root/a")
        args = {"session_id": "root/a", "blobs_root": self.root, "max_variable_bytes": 1000, "max_total_bytes": None}
        result = _snapshot.snapshot_for_host(json.dumps(args))._repr_json_()
        self.assertEqual([v["name"] for v in result["variables"]], ["x"])
        self.assertGreaterEqual(result["seconds"], 0)
        restored = _snapshot.restore_for_host(json.dumps({"manifest": result, "blobs_root": self.root}))._repr_json_()
        self.assertEqual(restored["restored"], ["x"])


class ThreadLockTest(unittest.TestCase):
    def test_dill_keeps_a_held_lock_held(self):
        from recur_kernel import _picklers

        lock = threading.Lock()
        lock.acquire()
        data, pickler = _picklers.dumps(lock, {}, set())
        self.assertEqual(pickler, "dill")
        self.assertFalse(_picklers.loads(data, pickler, {}).acquire(blocking=False))


if __name__ == "__main__":
    unittest.main()
