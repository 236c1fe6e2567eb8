"""``jobs``: shell commands (experiments, builds) the host runs outside this kernel while the agent goes on.

A job runs in this session's sandbox on the host's job executor; its life (queued, started, ended)
is logged by the host, and its end wakes a session that finished its turn. Never wait for one in a cell.
"""

from . import _session


def _id(job):
    return job["id"] if isinstance(job, dict) else job


class JobHandle(dict):
    """A job as the host saw it when this was returned (``h["status"]``, ``h["exitCode"]``, …);
    ``h.status()``, ``h.logs()`` and ``h.cancel()`` ask the host again."""

    @property
    def id(self):
        return self["id"]

    def status(self):
        """The job's status now: queued, running, finished, failed, timed_out or cancelled."""
        return _session.call("jobs.status", {"id": self.id})["status"]

    def logs(self, tail=20000):
        return _session.call("jobs.logs", {"id": self.id, "tail": tail})

    def cancel(self):
        return JobHandle(_session.call("jobs.cancel", {"id": self.id}))

    def __repr__(self):
        return f"<job {self['id']} {self['status']}: {self['command'][:60]!r}>"


class Jobs:
    def submit(self, cmd, cpus=1, seeds=None, timeout=None):
        """Queue ``cmd`` (bash -c) and return its handle.

        ``seeds``: run ``cmd`` once per seed, in order, with ``RECUR_SEED`` set; ``timeout``: seconds for the whole job.
        """
        args = {"command": cmd, "cpus": cpus, "seeds": list(seeds or []), "timeout": timeout}
        return JobHandle(_session.call("jobs.submit", args))

    def status(self, id=None):
        """One job (an id or a handle), or every job this session has, newest last."""
        if id is None:
            return [JobHandle(j) for j in _session.call("jobs.status", {"id": None})]
        return JobHandle(_session.call("jobs.status", {"id": _id(id)}))

    def cancel(self, id):
        """Ask the executor to stop a job (an id or a handle); its end arrives like any other."""
        return JobHandle(_session.call("jobs.cancel", {"id": _id(id)}))

    def logs(self, id, tail=20000):
        """The last ``tail`` characters of a job's output, from the host that ran it."""
        return _session.call("jobs.logs", {"id": _id(id), "tail": tail})

    def __repr__(self):
        return "<jobs: submit(cmd, cpus=1, seeds=None, timeout=None), status(id=None), cancel(id), logs(id, tail=20000)>"
