"""The kernel side of the Continual Harness: request shapes and the skill importer (no host needed)."""

import os
import sys
import tempfile
import unittest

from recur_kernel import _harness, _session


class _FakeHost:
    def __init__(self, replies):
        self.calls = []
        self.replies = replies

    def __call__(self, op, args=None, timeout=None):
        self.calls.append((op, args))
        reply = self.replies.get(op)
        if isinstance(reply, Exception):
            raise reply
        return reply


class HarnessApiTest(unittest.TestCase):
    def setUp(self):
        self.original = _session.call
        self.addCleanup(setattr, _session, "call", self.original)

    def host(self, **replies):
        fake = _FakeHost(replies)
        _session.call = fake
        return fake

    def test_each_kind_sends_one_edit_with_its_value_shape(self):
        host = self.host(**{"harness.edit": {"result": "applied"}})
        h = _harness.Harness()
        h.memory.create("notes", "v1", scope="global", reason="remember")
        h.subagents.create("reviewer", "review", max_turns=3)
        h.skills.create("adder", "def add(a, b): return a + b", "adds", api="add(a, b)")
        self.assertEqual([args for _, args in host.calls], [
            {"action": "create", "kind": "memory", "name": "notes", "value": {"text": "v1"}, "scope": "global", "reason": "remember"},
            {"action": "create", "kind": "subagent", "name": "reviewer", "value": {"instructions": "review", "model": None, "maxTurns": 3}, "scope": "session", "reason": None},
            {"action": "create", "kind": "skill", "name": "adder", "value": {"description": "adds", "api": "add(a, b)", "files": {"__init__.py": "def add(a, b): return a + b"}}, "scope": "session", "reason": None},
        ])

    def test_a_skill_is_imported_from_the_path_the_host_names(self):
        pkg = os.path.join(tempfile.mkdtemp(), "skill_under_test")
        os.makedirs(pkg)
        with open(os.path.join(pkg, "__init__.py"), "w") as f:
            f.write("VALUE = 41 + 1\n")
        self.host(**{"harness.skill_path": {"path": pkg}})
        _harness.install_finder()
        self.addCleanup(sys.modules.pop, "skill_under_test", None)
        import skill_under_test

        self.assertEqual(skill_under_test.VALUE, 42)
        # Nothing is written beside the skill: the host's check of its directory must find it as it wrote it.
        self.assertEqual(sorted(os.listdir(pkg)), ["__init__.py"])

    def test_an_unknown_or_unreachable_skill_is_a_plain_import_error(self):
        _harness.install_finder()
        self.host(**{"harness.skill_path": None})
        with self.assertRaises(ImportError):
            import no_such_skill_here  # noqa: F401
        self.host(**{"harness.skill_path": RuntimeError("host down")})
        with self.assertRaises(ImportError):
            import no_such_skill_either  # noqa: F401

    def test_names_that_could_not_be_skills_never_reach_the_host(self):
        host = self.host(**{"harness.skill_path": None})
        finder = _harness.SkillFinder()
        self.assertIsNone(finder.find_spec("Not_A_Skill", None))
        self.assertIsNone(finder.find_spec("pkg.sub", ["/x"]))
        self.assertEqual(host.calls, [])


if __name__ == "__main__":
    unittest.main()
