import os
import subprocess
import sys
import unittest

KERNEL_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POLICY = {
    "workspace": "/h/workspaces/k", "group": "/h/workspaces/k", "shared": ["/h/workspaces/k/.git"],
    "zmq": "/h/run/sb/k/zmq", "bridge": "/h/run/sb/k/bridge", "spool": "/h/run/sb/k/spool",
    "restore": "/h/run/sb/k/restore", "skills": "/h/run/sb/k/skills", "kernelPackage": "/repo/kernel/recur_kernel",
    "limits": {"memoryBytes": 1024, "processes": 16, "openFiles": 64, "fileBytes": 2048}, "net": "none",
}
CONNECTION = "/h/run/rt/kernel-1.json"
KEY = "a" * 32


def mounts(argv):
    return [(argv[i], argv[i + 1], argv[i + 2]) for i, a in enumerate(argv) if a in ("--bind", "--ro-bind")]


class JobArgvTest(unittest.TestCase):
    """A job's bubblewrap command line (recur_jupyter.job) against its kernel's (recur_jupyter.sandbox)."""

    def kernel(self, uid=7, gid=9):
        from recur_jupyter.sandbox import bwrap_argv

        return bwrap_argv(["python", "-m", "ipykernel_launcher", "-f", CONNECTION], CONNECTION, POLICY, uid, "bwrap", gid)

    def job(self, uid=7, gid=9, env=None):
        from recur_jupyter.sandbox import bwrap_argv

        return bwrap_argv(["bash", "-c", "make"], None, POLICY, uid, "bwrap", gid, extra_env=env)

    def test_a_job_has_no_connection_file_and_otherwise_the_kernels_mounts(self):
        job = mounts(self.job())
        self.assertFalse(any(CONNECTION in m or m[2].endswith("kernel-1.json") for m in job))
        self.assertEqual(set(mounts(self.kernel())) - set(job), {("--ro-bind", CONNECTION, "/h/run/sb/k/zmq/kernel-1.json")})
        self.assertEqual(set(job) - set(mounts(self.kernel())), set())

    def test_the_kernels_argv_is_the_jobs_plus_only_its_connection_file(self):
        inside = "/h/run/sb/k/zmq/kernel-1.json"
        for uid, gid in ((7, 9), (5, None), (None, None)):
            with self.subTest(uid=uid):
                job = self.job(uid, gid)
                self.assertEqual(job[-3:], ["bash", "-c", "make"])
                at = job.index("--clearenv")
                expected = job[:at] + ["--ro-bind", CONNECTION, inside] + job[at:-3] + ["python", "-m", "ipykernel_launcher", "-f", inside]
                self.assertEqual(self.kernel(uid, gid), expected)

    def test_the_same_limits_namespaces_uid_and_cleared_environment_as_a_kernel(self):
        job = self.job()
        for flag in ("--unshare-net", "--unshare-pid", "--die-with-parent", "--clearenv", "--as=1024", "--nproc=16", "--nofile=64", "--fsize=2048"):
            self.assertIn(flag, job)
        self.assertEqual(job[job.index("setpriv") + 1:job.index("setpriv") + 3], ["--reuid=7", "--regid=9"])
        self.assertEqual(job[job.index("--chdir") + 1], "/h/workspaces/k")

    def test_only_the_seed_crosses_the_cleared_environment(self):
        from recur_jupyter.job import job_argv

        argv, _, _ = job_argv(POLICY, KEY, ["true"], env={"RECUR_SEED": "3", "OPENAI_API_KEY": "sk", "RECUR_X": "1"})
        env = {argv[i + 1]: argv[i + 2] for i, a in enumerate(argv) if a == "--setenv"}
        self.assertEqual(env["RECUR_SEED"], "3")
        self.assertNotIn("OPENAI_API_KEY", env)
        self.assertNotIn("RECUR_X", env)
        self.assertNotIn("RECUR_SEED", {self.job()[i + 1] for i, a in enumerate(self.job()) if a == "--setenv"})

    def test_the_uid_and_group_are_the_kernels(self):
        from recur_jupyter.job import job_argv
        from recur_jupyter.sandbox import UID_BASE, sandbox_uid, workspace_gid

        _, uid, gid = job_argv(POLICY, KEY, ["true"], env={})
        if os.geteuid() == 0:
            self.assertEqual((uid, gid), (sandbox_uid(KEY, UID_BASE), workspace_gid(POLICY, UID_BASE)))
        else:
            self.assertEqual((uid, gid), (None, None))


class JobMainTest(unittest.TestCase):
    def run_job(self, args, path):
        env = dict(os.environ, PYTHONPATH=KERNEL_DIR, PATH=path)
        return subprocess.run([sys.executable, "-m", "recur_jupyter.job", *args], capture_output=True, text=True, env=env, timeout=60)

    def test_without_bwrap_it_exits_127_saying_so(self):
        done = self.run_job(["/nonexistent", KEY, "--", "true"], "/nonexistent")
        self.assertEqual(done.returncode, 127)
        self.assertIn("bubblewrap (bwrap) is not installed", done.stderr)

    def test_a_bad_command_line_or_a_missing_policy_is_refused(self):
        self.assertEqual(self.run_job(["/r", "not-a-key", "--", "true"], os.environ["PATH"]).returncode, 2)
        self.assertEqual(self.run_job(["/r", KEY, "true"], os.environ["PATH"]).returncode, 2)
        import shutil

        if shutil.which("bwrap") is None:
            self.skipTest("bwrap is not installed: the policy is read only when it is")
        done = self.run_job(["/nonexistent", KEY, "--", "true"], os.environ["PATH"])
        self.assertEqual(done.returncode, 126)
        self.assertIn("no readable sandbox policy", done.stderr)


if __name__ == "__main__":
    unittest.main()


class KnowledgeMountsTest(unittest.TestCase):
    """A research tier's mounts (docs/research-loop.md), the same for a kernel and its jobs."""

    def argv(self, papers, tmp=None):
        from recur_jupyter.sandbox import bwrap_argv

        policy = dict(POLICY, workspace=tmp or POLICY["workspace"], papers=papers)
        return bwrap_argv(["bash", "-c", "ls papers"], None, policy, 7, "bwrap", 9)

    def test_the_archive_is_mounted_read_only_over_the_workspaces_papers_after_the_workspace(self):
        argv = self.argv({"from": "/repo/tasks/t/papers", "at": "/h/workspaces/k/papers"})
        at = argv.index("/repo/tasks/t/papers")
        self.assertEqual(argv[at - 1:at + 2], ["--ro-bind", "/repo/tasks/t/papers", "/h/workspaces/k/papers"])
        self.assertGreater(at, argv.index("/h/workspaces/k"))

    def test_a_tier_without_it_hides_a_papers_directory_the_workspace_has(self):
        import tempfile

        with tempfile.TemporaryDirectory() as ws:
            papers = os.path.join(ws, "papers")
            self.assertNotIn(papers, self.argv({"from": None, "at": papers}, ws))
            os.mkdir(papers)
            argv = self.argv({"from": None, "at": papers}, ws)
            at = argv.index(papers)
            self.assertEqual(argv[at - 1:at + 3], ["--tmpfs", papers, "--remount-ro", papers])

    def test_no_research_tier_mounts_nothing_more(self):
        from recur_jupyter.sandbox import bwrap_argv

        self.assertEqual(self.argv(None), bwrap_argv(["bash", "-c", "ls papers"], None, POLICY, 7, "bwrap", 9))

