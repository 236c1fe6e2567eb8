"""``research`` and ``ledger``: experiments on a research session's task, judged by the host.

``research.trial`` and ``research.submit`` ask the host to run the task's frozen judge on the
workspace as it stands; its numbers go into the ledger, which only the host writes. The run is a
job: its end wakes a session that finished its turn. Never wait for one in a cell at the root. The
ledger and the job are the tree's root's: a sub-agent's experiment is a row of it (``by`` names the
sub-agent), whose end wakes the root, not the sub-agent, which reads it with ``ledger.query()``.
"""

from . import _session


def _id(row):
    return row["id"] if isinstance(row, dict) else row


class Experiment(dict):
    """A ledger row as the host had it when this was returned (``e["status"]``, ``e["mean"]``, …)."""

    @property
    def id(self):
        return self["id"]

    def __repr__(self):
        mean = "-" if self["mean"] is None else f"{self['mean']:.5f}"
        return f"<experiment {self['id']} {self['kind']} {self['status']}: steps={self['steps']} mean={mean} idea={self['idea'][:40]!r}>"


class Research:
    def trial(self, n=1, idea="", parent=None, file="train.py"):
        """Screen ``file`` (as it is now) over the task's first ``n`` seeds, run by the host; never a record."""
        return Experiment(_session.call("research.trial", {"n": n, "idea": idea, "parent": _id(parent), "file": file}))

    def submit(self, idea="", parent=None, file="train.py"):
        """Ask the host's judge whether ``file`` (as it is now) sets a record: every seed, the frozen regions,
        the record in force, the scale-up stage."""
        return Experiment(_session.call("research.submit", {"idea": idea, "parent": _id(parent), "file": file}))

    def record(self):
        """The record in force: ``{"id", "steps", "mean", "n"}``."""
        return _session.call("ledger.query", {"last": 1})["record"]

    def __repr__(self):
        return "<research: trial(n=1, idea='', parent=None, file='train.py'), submit(idea='', parent=None, file='train.py'), record()>"


class Ledger:
    def query(self, last=50):
        """The ledger's last ``last`` rows, oldest first; each row's trials are ``zip(row["seeds"], row["values"])``."""
        return [Experiment(r) for r in _session.call("ledger.query", {"last": last})["rows"]]

    def annotate(self, id, note):
        """Add a note to a row (an id or a row); the one thing the agent may write in the ledger."""
        return Experiment(_session.call("ledger.annotate", {"id": _id(id), "note": note}))

    def __repr__(self):
        return "<ledger: query(last=50), annotate(id, note)>"
