"""``git``: the git writes an agent may make to its workspace's repository, made by the host.

The workspace's ``.git`` is read-only in the sandbox: hooks, config and attributes written there
would run later on the host, outside any sandbox. So a commit or a new branch is asked of the host,
which runs git with hooks, fsmonitor, filters and credential helpers off, and logs what it did
(a ``GitOperation`` event). Reading works as ever: ``git status``, ``git diff``, ``git log`` in a
shell, or ``subprocess``.
"""

from . import _session


class Git:
    def commit(self, message, paths=None):
        """Commit the workspace's changes on the current branch, as git add -A (or only ``paths``,
        relative to the workspace) then git commit would; returns {commit, branch, files}."""
        args = {"message": message}
        if paths is not None:
            args["paths"] = [paths] if isinstance(paths, str) else list(paths)
        return _session.call("git.commit", args)

    def branch(self, name, checkout=True):
        """Create branch ``name`` at HEAD and, by default, switch to it (git checkout -b), keeping the
        working tree as it is; returns {branch, commit}."""
        return _session.call("git.branch", {"name": name, "checkout": bool(checkout)})

    def __repr__(self):
        return "<git: commit(message, paths=None), branch(name, checkout=True); reads with git itself>"
