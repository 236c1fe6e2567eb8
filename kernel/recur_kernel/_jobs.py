"""``jobs``: shell commands (experiments, builds) the host runs outside this kernel while the agent goes on.

A job runs in this session's sandbox on the host's job executor; its life (queued, started, ended)
is logged by the host, and its end wakes a session that finished its turn. Never wait for one in a cell.
"""

from . import _session


class Jobs:
    def submit(self, cmd, cpus=1, seeds=None, timeout=None):
        """Queue ``cmd`` (bash -c); return the job (a dict: id, status, …).

        ``seeds``: run ``cmd`` once per seed, in order, with ``RECUR_SEED`` set; ``timeout``: seconds for the whole job.
        """
        args = {"command": cmd, "cpus": cpus, "seeds": list(seeds or []), "timeout": timeout}
        return _session.call("jobs.submit", args)

    def status(self, id=None):
        """One job (``id``), or every job this session has, newest last."""
        return _session.call("jobs.status", {"id": id})

    def cancel(self, id):
        """Ask the executor to stop job ``id``; its end arrives like any other."""
        return _session.call("jobs.cancel", {"id": id})

    def logs(self, id, tail=20000):
        """The last ``tail`` characters of job ``id``'s output, from the host that ran it."""
        return _session.call("jobs.logs", {"id": id, "tail": tail})

    def __repr__(self):
        return "<jobs: submit(cmd, cpus=1, seeds=None, timeout=None), status(id=None), cancel(id), logs(id, tail=20000)>"
