"""``goal``: the session's persistent objective, owned by the host.

The host logs every change and re-presents the goal after each turn, compaction and restart.
An open-ended goal binds the agent: ``complete``, ``pause`` and ``clear`` then raise ``ScopeError``.
"""

from . import _session


class Goal:
    def get(self):
        """The goal with its budgets and usage, or ``None`` when there is none."""
        return _session.call("goal.get", {})

    def create(self, objective, token_budget=None, seconds_budget=None, cost_budget_usd=None, open_ended=False):
        """Set a goal (only when the user asked for one); refused while another is open."""
        if not isinstance(objective, str):
            raise TypeError("goal.create(objective): objective must be a string")
        return _session.call("goal.create", {
            "objective": objective, "token_budget": token_budget, "seconds_budget": seconds_budget,
            "cost_budget_usd": cost_budget_usd, "open_ended": bool(open_ended),
        })

    def complete(self, evidence=""):
        """Mark the goal met, with the evidence that it is; refused for an open-ended goal."""
        return _session.call("goal.complete", {"evidence": str(evidence)})

    def pause(self):
        return _session.call("goal.pause", {})

    def resume(self):
        return _session.call("goal.resume", {})

    def clear(self):
        return _session.call("goal.clear", {})

    def __repr__(self):
        return "<goal: get(), create(objective, token_budget=None, ...), complete(evidence), pause(), resume(), clear()>"
