"""``schedule``: heartbeats and timed prompts that re-enter this session on durable timers.

Specs: ``"in 10m"``, ``"at 2026-01-01T09:00:00Z"``, ``"every 5m"`` (a heartbeat) or a 5-field UTC
cron expression. Ticks missed while the session was busy or no worker ran fire once, coalesced.
"""

from . import _session


class Schedule:
    def add(self, spec, instruction):
        """Add a schedule; return the active schedules (the new one last)."""
        return _session.call("schedule.add", {"spec": spec, "instruction": instruction})

    def list(self):
        return _session.call("schedule.list", {})

    def cancel(self, id):
        """Cancel schedule ``id`` (as in ``list()``); return the active schedules left."""
        return _session.call("schedule.cancel", {"id": id})

    def __repr__(self):
        return "<schedule: add(spec, instruction), list(), cancel(id)>"
