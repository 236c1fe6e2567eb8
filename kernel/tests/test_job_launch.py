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



class GateOptionsTest(unittest.TestCase):
    """What a gate adds to a job's command line (activities/jobs/job-launch.ts gateLauncher)."""

    def test_options_before_the_root(self):
        from recur_jupyter.job import parse

        root, key, cmd, opts = parse(["--egress", "--env", "CI=true", "--cwd", "/h/workspaces/k/app", "/r", KEY, "--", "bash", "-c", "make"])
        self.assertEqual((root, key, cmd), ("/r", KEY, ["bash", "-c", "make"]))
        self.assertEqual(opts, {"egress": True, "cwd": "/h/workspaces/k/app", "setenv": {"CI": "true"}})
        for bad in (["--net", "/r", KEY, "--", "true"], ["--env", "1X=2", "/r", KEY, "--", "true"], ["--cwd"]):
            self.assertIsNone(parse(bad), bad)

    def test_egress_puts_the_kernels_forwarder_before_the_command_and_env_crosses_the_clearenv(self):
        from recur_jupyter.job import job_argv

        argv, _, _ = job_argv(POLICY, KEY, ["bash", "-c", "npm ci"], env={}, egress=True, setenv={"CI": "true"})
        tail = argv[argv.index(sys.executable):]
        self.assertEqual(tail, [sys.executable, "-I", "-S", "/repo/kernel/recur_kernel/_egress.py", "/h/run/sb/k/bridge/egress", "--", "bash", "-c", "npm ci"])
        env = {argv[i + 1]: argv[i + 2] for i, a in enumerate(argv) if a == "--setenv"}
        self.assertEqual(env["CI"], "true")
        self.assertEqual(env["HTTPS_PROXY"], "http://127.0.0.1:3128")

    def test_it_starts_only_inside_the_workspace(self):
        import tempfile

        from recur_jupyter.job import job_argv
        from recur_jupyter.sandbox import SandboxError

        with tempfile.TemporaryDirectory() as ws:
            os.mkdir(os.path.join(ws, "app"))
            os.symlink("/etc", os.path.join(ws, "out"))
            policy = dict(POLICY, workspace=ws, group=ws, shared=[])
            argv, _, _ = job_argv(policy, KEY, ["true"], env={}, cwd=os.path.join(ws, "app"))
            self.assertEqual(argv[argv.index("--chdir") + 1], os.path.realpath(os.path.join(ws, "app")))
            for outside in ("/etc", os.path.join(ws, "out"), os.path.join(ws, "..")):
                with self.assertRaises(SandboxError):
                    job_argv(policy, KEY, ["true"], env={}, cwd=outside)


class GitMountsTest(unittest.TestCase):
    """``.git`` read-only over the writable workspace, wherever git keeps what it later runs."""

    def setUp(self):
        import tempfile

        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.root = os.path.realpath(self.tmp.name)

    def git(self, *args, cwd):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True, capture_output=True)

    def argv(self, ws, shared=()):
        from recur_jupyter.sandbox import bwrap_argv

        return bwrap_argv(["true"], None, dict(POLICY, workspace=ws, group=ws, shared=list(shared)), 7, "bwrap", 9)

    def test_a_repositorys_git_directory_is_mounted_read_only_after_the_workspace(self):
        ws = os.path.join(self.root, "app")
        os.mkdir(ws)
        self.git("init", "-q", cwd=ws)
        m = mounts(self.argv(ws))
        self.assertLess(m.index(("--bind", ws, ws)), m.index(("--ro-bind", f"{ws}/.git", f"{ws}/.git")))

    def test_a_workspace_named_through_a_link_has_its_git_mounted_where_the_workspace_is(self):
        ws = os.path.join(self.root, "real")
        os.mkdir(ws)
        self.git("init", "-q", cwd=ws)
        os.symlink(ws, os.path.join(self.root, "named"))
        named = os.path.join(self.root, "named")
        self.assertIn(("--ro-bind", f"{named}/.git", f"{named}/.git"), mounts(self.argv(named)))

    def test_a_plain_directory_has_nothing_more(self):
        ws = os.path.join(self.root, "plain")
        os.mkdir(ws)
        self.assertEqual([x for x in mounts(self.argv(ws)) if x[1].startswith(self.root)], [("--bind", ws, ws)])

    def test_a_worktrees_pointer_file_and_both_directories_it_names_and_a_shared_repository_are_read_only(self):
        repo = os.path.join(self.root, "repo")
        os.mkdir(repo)
        self.git("init", "-q", cwd=repo)
        self.git("commit", "-q", "--allow-empty", "-m", "one", cwd=repo)
        wt = os.path.join(self.root, "wt")
        self.git("worktree", "add", "-q", "--detach", wt, cwd=repo)
        m = mounts(self.argv(wt, shared=[f"{repo}/.git"]))
        for path in (f"{wt}/.git", f"{repo}/.git/worktrees/wt", f"{repo}/.git"):
            self.assertIn(("--ro-bind", path, path), m)
        self.assertNotIn(("--bind", f"{repo}/.git", f"{repo}/.git"), m)

    def test_a_submodules_pointer_file_inside_the_workspace_is_read_only_and_gitmodules_cannot_point_outside(self):
        ws = os.path.join(self.root, "top")
        os.makedirs(os.path.join(ws, "lib"))
        self.git("init", "-q", cwd=ws)
        os.makedirs(os.path.join(ws, ".git", "modules", "lib"))
        with open(os.path.join(ws, "lib", ".git"), "w") as f:
            f.write("gitdir: ../.git/modules/lib\n")
        with open(os.path.join(ws, ".gitmodules"), "w") as f:
            f.write('[submodule "lib"]\n\tpath = lib\n[submodule "x"]\n\tpath = ../../etc\n')
        m = mounts(self.argv(ws))
        self.assertIn(("--ro-bind", f"{ws}/lib/.git", f"{ws}/lib/.git"), m)
        self.assertFalse(any(x[1].startswith("/etc/") or x[1] == "/etc/.git" for x in m))


@unittest.skipUnless(__import__("shutil").which("bwrap") and __import__("shutil").which("setfacl"), "needs bubblewrap and setfacl")
class GitReadOnlyInTheSandboxTest(unittest.TestCase):
    """For real: a command in a session's sandbox cannot change ``.git``; plain git says which helpers can."""

    def setUp(self):
        import json
        import tempfile

        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        base = os.path.realpath(self.tmp.name)
        os.chmod(base, 0o755)
        self.ws = os.path.join(base, "ws")
        os.mkdir(self.ws)
        subprocess.run(["git", "init", "-q", self.ws], check=True)
        self.root = os.path.join(base, "sb")
        d = os.path.join(self.root, KEY)
        policy = {
            "workspace": self.ws, "group": self.ws, "shared": [], "zmq": f"{d}/zmq", "bridge": f"{d}/bridge", "spool": f"{d}/spool",
            "restore": f"{d}/restore", "skills": f"{d}/skills", "kernelPackage": os.path.join(KERNEL_DIR, "recur_kernel"),
            "limits": {"memoryBytes": 1 << 31, "processes": 256, "openFiles": 256, "fileBytes": 1 << 30}, "net": "none",
        }
        for k in ("bridge", "restore", "skills"):
            os.makedirs(policy[k], mode=0o755)
        with open(os.path.join(d, "policy.json"), "w") as f:
            json.dump(policy, f)

    def run_in(self, script):
        env = {"PATH": os.environ["PATH"], "PYTHONPATH": KERNEL_DIR}
        return subprocess.run([sys.executable, "-m", "recur_jupyter.job", self.root, KEY, "--", "sh", "-c", script],
                              capture_output=True, text=True, env=env, timeout=60)

    def test_hooks_config_and_attributes_cannot_be_written_but_the_workspace_can(self):
        done = self.run_in("for f in .git/hooks/pre-commit .git/config .git/info/attributes; do "
                           "(echo x >> $f) 2>/dev/null && echo WROTE $f || echo BLOCKED $f; done; echo ok > file.txt && echo WROTE file.txt")
        self.assertEqual(done.stdout.split("\n")[:4], ["BLOCKED .git/hooks/pre-commit", "BLOCKED .git/config", "BLOCKED .git/info/attributes", "WROTE file.txt"])
        self.assertFalse(os.path.exists(os.path.join(self.ws, ".git", "hooks", "pre-commit")))

    def test_git_reads_but_a_commit_fails_naming_the_helper(self):
        done = self.run_in("git status --porcelain; echo x > a.txt; git add a.txt; echo status=$?")
        self.assertIn("status=128", done.stdout)
        self.assertIn("git.commit(", done.stderr)
        self.assertIn("Read-only file system", done.stderr)
