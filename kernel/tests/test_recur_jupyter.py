import unittest

import recur_jupyter


class _Handler:
    def __init__(self):
        self.nodelay = None

    def set_nodelay(self, value):
        self.nodelay = value


class _Connection:
    def __init__(self):
        self.websocket_handler = _Handler()

    def connect(self):
        return "connected"


class NoDelayTest(unittest.TestCase):
    def test_connect_sets_nodelay_before_the_base_connects(self):
        conn = recur_jupyter.with_nodelay(_Connection)()
        self.assertEqual(conn.connect(), "connected")
        self.assertIs(conn.websocket_handler.nodelay, True)

    def test_env_switch(self):
        self.assertTrue(recur_jupyter.nodelay_enabled({}))
        self.assertTrue(recur_jupyter.nodelay_enabled({"RECUR_JUPYTER_NODELAY": "1"}))
        self.assertFalse(recur_jupyter.nodelay_enabled({"RECUR_JUPYTER_NODELAY": "0"}))
        self.assertFalse(recur_jupyter.nodelay_enabled({"RECUR_JUPYTER_NODELAY": "off"}))


if __name__ == "__main__":
    unittest.main()


class SandboxArgvTest(unittest.TestCase):
    """What a sandboxed kernel is started with (kernel/recur_jupyter/sandbox.py); the escape suite runs it for real."""

    POLICY = {
        "workspace": "/h/workspaces/k", "zmq": "/h/run/sb/k/zmq", "bridge": "/h/run/sb/k/bridge", "spool": "/h/run/sb/k/spool",
        "restore": "/h/run/sb/k/restore", "skills": "/h/run/sb/k/skills", "kernelPackage": "/repo/kernel/recur_kernel",
        "limits": {"memoryBytes": 1024, "processes": 16, "openFiles": 64, "fileBytes": 2048}, "net": "none",
    }

    def argv(self, uid=123):
        from recur_jupyter.sandbox import bwrap_argv

        return bwrap_argv(["python", "-m", "ipykernel_launcher", "-f", "/h/run/rt/kernel-1.json"], "/h/run/rt/kernel-1.json", self.POLICY, uid)

    def mounts(self, argv):
        return {(argv[i], argv[i + 1]) for i, a in enumerate(argv) if a in ("--bind", "--ro-bind")}

    def test_every_namespace_but_the_user_one_for_root_and_the_limits(self):
        argv = self.argv()
        for flag in ("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-net", "--die-with-parent", "--clearenv"):
            self.assertIn(flag, argv)
        self.assertNotIn("--unshare-user", argv)
        self.assertIn("--unshare-user", self.argv(uid=None))
        for limit in ("--as=1024", "--nproc=16", "--nofile=64", "--fsize=2048"):
            self.assertIn(limit, argv)
        self.assertEqual(argv[argv.index("setpriv") + 1:argv.index("setpriv") + 3], ["--reuid=123", "--regid=123"])

    def test_only_the_sessions_own_directories_are_writable_and_the_home_is_not_mounted(self):
        mounts = self.mounts(self.argv())
        writable = {src for flag, src in mounts if flag == "--bind"}
        self.assertEqual(writable, {"/h/workspaces/k", "/h/run/sb/k/zmq", "/h/run/sb/k/spool"})
        self.assertFalse(any(src in ("/h", "/h/run", "/repo", "/repo/kernel") for _, src in mounts))
        self.assertIn(("--ro-bind", "/h/run/rt/kernel-1.json"), mounts)

    def test_the_kernel_reads_its_connection_file_in_its_own_directory(self):
        argv = self.argv()
        self.assertEqual(argv[-2:], ["-f", "/h/run/sb/k/zmq/kernel-1.json"])

    def test_no_network_policy_gives_a_route_out_only_the_egress_proxy_variables(self):
        from recur_jupyter.sandbox import bwrap_argv

        argv = bwrap_argv(["python"], "/c.json", dict(self.POLICY, net="full"), 1)
        self.assertIn("--unshare-net", argv)
        env = {argv[i + 1]: argv[i + 2] for i, a in enumerate(argv) if a == "--setenv"}
        self.assertEqual((env["HTTPS_PROXY"], env["NO_PROXY"]), ("http://127.0.0.1:3128", "localhost,127.0.0.1,::1"))

    def test_a_kernel_without_a_recur_policy_name_is_refused(self):
        from recur_jupyter.sandbox import SandboxError, policy_key

        self.assertEqual(policy_key({"JPY_SESSION_NAME": "/root/work/" + "a" * 32}), "a" * 32)
        for env in ({}, {"JPY_SESSION_NAME": "/x/../../etc"}, {"JPY_SESSION_NAME": "/x/notes.ipynb"}):
            with self.assertRaises(SandboxError):
                policy_key(env)


class WorkspaceAccessTest(unittest.TestCase):
    """A root-run kernel's uid, its workspace group and the ACL that opens the workspace (docs/workspace.md)."""

    POLICY = dict(SandboxArgvTest.POLICY, workspace="/src/repo", group="/src/repo", shared=["/src/repo/.git"])

    def test_the_group_follows_the_tree_workspace_and_the_uid_the_session(self):
        from recur_jupyter.sandbox import sandbox_uid, workspace_gid

        child = dict(self.POLICY, workspace="/h/worktrees/c")
        self.assertEqual(workspace_gid(self.POLICY, 1 << 30), workspace_gid(child, 1 << 30))
        self.assertNotEqual(workspace_gid(self.POLICY, 1 << 30), workspace_gid(dict(self.POLICY, group="/src/other"), 1 << 30))
        self.assertNotEqual(sandbox_uid("a" * 32, 1 << 30), sandbox_uid("b" * 32, 1 << 30))

    def test_the_workspace_is_writable_and_mounted_first_and_what_it_shares_read_only_over_it(self):
        from recur_jupyter.sandbox import bwrap_argv

        argv = bwrap_argv(["python"], "/c.json", self.POLICY, 7, gid=9)
        binds = [(argv[i], argv[i + 1]) for i, a in enumerate(argv) if a in ("--bind", "--ro-bind")]
        self.assertLess(binds.index(("--bind", "/src/repo")), binds.index(("--ro-bind", "/repo/kernel/recur_kernel")))
        self.assertEqual([b for b in binds if b[0] == "--bind" and b[1].startswith("/src/")], [("--bind", "/src/repo")])
        self.assertEqual(argv[argv.index("setpriv") + 1:argv.index("setpriv") + 3], ["--reuid=7", "--regid=9"])
        self.assertEqual(argv[argv.index("--chdir") + 1], "/src/repo")

    def test_the_group_gets_rwx_on_the_tree_and_what_is_created_in_it_and_the_owner_gets_files_back(self):
        import os
        import shutil
        import subprocess
        import tempfile
        from recur_jupyter.sandbox import SandboxError, grant_group, hand_back

        if shutil.which("setfacl") is None or os.geteuid() != 0:
            self.skipTest("needs setfacl and root")
        root = tempfile.mkdtemp()
        try:
            os.makedirs(os.path.join(root, "d"))
            with open(os.path.join(root, "d", "f"), "w") as f:
                f.write("x")
            outside = tempfile.mkdtemp()
            os.symlink(outside, os.path.join(root, "link"))
            grant_group([root], 4242)
            acl = lambda p: subprocess.run(["getfacl", "-cp", p], capture_output=True, text=True).stdout
            self.assertIn("group:4242:rw-", acl(os.path.join(root, "d", "f")))
            self.assertIn("default:group:4242:rwx", acl(os.path.join(root, "d")))
            self.assertNotIn("4242", acl(outside))
            new = os.path.join(root, "d", "made-later")
            open(new, "w").close()
            # Inherited from the default entry, masked to the file's mode: effective read-write.
            self.assertRegex(acl(new), r"group:4242:rw[-x](\s+#effective:rw-)?\n")
            os.chown(new, 5151, 4242)
            hand_back([root], 5151)
            self.assertEqual(os.stat(new).st_uid, 0)
            with self.assertRaises(SandboxError):
                grant_group([os.path.join(root, "missing")], 4242)
        finally:
            shutil.rmtree(root)
            shutil.rmtree(outside)
