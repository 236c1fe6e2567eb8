"""``harness``: the agent's Continual Harness (prompt notes, sub-agent specs, skills, memory).

Every create/update/delete is one RPC; the host validates it, logs it as a HarnessEdited event
(refusals too) and raises ``HarnessEditError`` (a ``ValueError``) when it refuses. ``scope`` is
``"session"`` (this session tree, the default) or ``"global"`` (every later session).
Skills are imported by name: ``SkillFinder`` asks the host where a skill's package is.
"""

import importlib
import importlib.abc
import importlib.util
import os
import re
import sys
import threading

from . import _session

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


class _Kind:
    kind = ""

    def _edit(self, action, name, value=None, scope="session", reason=None):
        return _session.call(
            "harness.edit",
            {"action": action, "kind": self.kind, "name": name, "value": value, "scope": scope, "reason": reason},
        )

    def read(self, name):
        """The entry's value (session scope shadows global), or None."""
        entry = _session.call("harness.read", {"kind": self.kind, "name": name})
        return None if entry is None else entry["value"]

    def list(self):
        """Every entry of this kind the session sees: ``[{kind, name, value, scope, editId}, ...]``."""
        return _session.call("harness.list", {"kind": self.kind})

    def delete(self, name, scope="session", reason=None):
        return self._edit("delete", name, scope=scope, reason=reason)

    def __repr__(self):
        return f"<harness.{self.kind}: create/read/update/delete/list>"


class _TextKind(_Kind):
    def create(self, name, text, scope="session", reason=None):
        return self._edit("create", name, {"text": text}, scope, reason)

    def update(self, name, text, scope="session", reason=None):
        return self._edit("update", name, {"text": text}, scope, reason)


class _Prompts(_TextKind):
    kind = "prompt"


class _Memory(_TextKind):
    kind = "memory"


class _Subagents(_Kind):
    kind = "subagent"

    def create(self, name, instructions, model=None, max_turns=None, scope="session", reason=None):
        """A named template for ``rlm(task, spec=name)``: instructions, and optionally a model and a turn limit."""
        return self._edit("create", name, {"instructions": instructions, "model": model, "maxTurns": max_turns}, scope, reason)

    def update(self, name, instructions, model=None, max_turns=None, scope="session", reason=None):
        return self._edit("update", name, {"instructions": instructions, "model": model, "maxTurns": max_turns}, scope, reason)


class _Skills(_Kind):
    kind = "skill"

    def _value(self, code, description, api, files):
        return {"description": description, "api": api, "files": {**(files or {}), "__init__.py": code}}

    def create(self, name, code, description, api="", files=None, scope="session", reason=None):
        """A Python package importable as ``import <name>`` from the next cell (and later sessions of the scope)."""
        out = self._edit("create", name, self._value(code, description, api, files), scope, reason)
        _forget(name)
        return out

    def update(self, name, code, description, api="", files=None, scope="session", reason=None):
        out = self._edit("update", name, self._value(code, description, api, files), scope, reason)
        _forget(name)
        return out

    def delete(self, name, scope="session", reason=None):
        out = super().delete(name, scope, reason)
        _forget(name)
        return out


def _forget(name):
    """Drop an imported skill so the next import loads the new version."""
    for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[mod]
    importlib.invalidate_caches()


class Harness:
    """``harness.prompts / subagents / skills / memory`` plus ``revert``, ``log`` and ``refine``."""

    def __init__(self):
        self.prompts = _Prompts()
        self.subagents = _Subagents()
        self.skills = _Skills()
        self.memory = _Memory()

    def revert(self, edit_id, reason=None):
        """Undo an edit (or every edit of a refine) by id; the revert is itself logged as an edit."""
        return _session.call("harness.revert", {"id": edit_id, "reason": reason})

    def log(self, scope="session"):
        """Every edit of the scope, oldest first: id, action, kind, name, trigger and result (values: ``recur harness show``)."""
        return _session.call("harness.log", {"scope": scope})

    def refine(self, instructions="", scope="session", apply=None):
        """Ask the refiner to review this session and propose harness edits; returns the preview and what was applied."""
        return _session.call("harness.refine", {"instructions": instructions, "scope": scope, "apply": apply}, timeout=600)

    def __repr__(self):
        return "<harness: prompts, subagents, skills, memory (create/read/update/delete/list); revert(id); log(); refine()>"


class SkillFinder(importlib.abc.MetaPathFinder):
    """Last on ``sys.meta_path``: a top-level import nothing else found may be a harness skill."""

    _busy = threading.local()

    def find_spec(self, fullname, path, target=None):
        if path is not None or not _NAME.match(fullname) or getattr(self._busy, "on", False):
            return None
        self._busy.on = True
        try:
            found = _session.call("harness.skill_path", {"name": fullname}, timeout=10)
        except Exception:
            return None
        finally:
            self._busy.on = False
        if not found:
            return None
        pkg = found["path"]
        return importlib.util.spec_from_file_location(
            fullname, os.path.join(pkg, "__init__.py"), submodule_search_locations=[pkg]
        )


def install_finder():
    # The host checks a skill's directory file by file before handing it out and rewrites it when
    # anything was added: a bytecode cache written beside the source would read as tampering.
    sys.dont_write_bytecode = True
    if not any(isinstance(f, SkillFinder) for f in sys.meta_path):
        sys.meta_path.append(SkillFinder())
