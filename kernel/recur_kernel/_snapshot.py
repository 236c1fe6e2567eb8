"""Kernel namespace snapshots: every variable pickled on its own into the host's blob store.

The host runs ``snapshot_for_host`` / ``restore_for_host`` as silent cells and reads the JSON
back through ``user_expressions``; the pickles themselves go straight to the blob directory.

Shared references: each variable is pickled separately, so an object reachable from two
variables (``a = [1]; b = {"k": a}``) comes back as two copies and ``b["k"] is a`` no longer
holds. References inside one variable (cycles included) survive. That is the price of
per-variable blobs, which make snapshots incremental (an unchanged variable hashes the same, and
the host names the blobs its store holds already, so it is not written again) and let one bad
variable fail alone.

A variable that failed to restore is carried into later snapshots of this process until the
agent assigns that name again, so a failed restore is never silently overwritten.
"""

import importlib
import json
import platform
import sys
import time
import types

from . import _blobs, _picklers, _session

# IPython's own names; the rest of what it defines is in user_ns_hidden or starts with "_".
IPYTHON_NAMES = frozenset({"In", "Out", "exit", "quit", "get_ipython"})
MAX_REASON_CHARS = 300

# name -> (kind, manifest entry) that the last restore could not load ("variables" or "modules").
_carried = {}
# name -> (sha256 of the restored value pickled again now, its manifest entry). Pickles of
# functions and classes depend on string identity inside code objects, which a round trip
# changes; an unchanged restored value keeps its old blob instead of writing a new one.
_aliases = {}


def _shell_namespace():
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        raise RuntimeError("not inside IPython: pass user_ns")
    return shell.user_ns, shell.user_ns_hidden


def _visible(ns, hidden):
    """%who's rule: no ``_names``, nothing hidden (unless the agent rebound the name)."""
    for name, value in list(ns.items()):
        if name.startswith("_") or name in IPYTHON_NAMES:
            continue
        if name in hidden and hidden[name] is value:
            continue
        yield name, value


def _reason(what, error):
    text = f"{what}: {type(error).__name__}: {error}"
    return text if len(text) <= MAX_REASON_CHARS else text[: MAX_REASON_CHARS - 1] + "…"


def _versions(used):
    versions = {"pickle": _picklers.PROTOCOL}
    for name in used - {"pickle"}:
        versions[name] = getattr(sys.modules.get(name), "__version__", None)
    return versions


def snapshot(blobs_root, max_variable_bytes=None, max_total_bytes=None, user_ns=None, hidden=None, stored=frozenset()):
    """Pickle each visible variable into ``blobs_root``; return the manifest's contents.

    A pickle whose sha256 is in ``stored`` (blobs the host's store holds) is not written.

    ``variables``: ``{name, sha256, size, pickler}`` per saved variable; ``modules``: ``{name,
    module}`` to re-import; ``unsaved``: ``{name, reason}``; ``oversize``: ``{name, size,
    limit}`` (``limit`` is "variable" or "total"; for "variable", ``size`` is a lower bound).
    """
    if user_ns is None:
        user_ns, hidden = _shell_namespace()
    top_names = _top_names(user_ns)
    out = {"variables": [], "modules": [], "unsaved": [], "oversize": []}
    total = written = written_bytes = 0
    for name, value in _visible(user_ns, hidden or {}):
        _carried.pop(name, None)
        if isinstance(value, types.ModuleType):
            out["modules"].append({"name": name, "module": value.__name__})
            continue
        try:
            data, pickler = _picklers.dumps(value, user_ns, top_names, max_variable_bytes)
        except _picklers.TooLarge as e:
            out["oversize"].append({"name": name, "size": e.size, "limit": "variable"})
            continue
        except Exception as e:
            out["unsaved"].append({"name": name, "reason": _reason(type(value).__name__, e)})
            continue
        if max_total_bytes is not None and total + len(data) > max_total_bytes:
            out["oversize"].append({"name": name, "size": len(data), "limit": "total"})
            continue
        entry, new = _store(name, data, pickler, blobs_root, stored)
        total += entry["size"]
        written += new
        written_bytes += entry["size"] if new else 0
        out["variables"].append(entry)
    for name, (kind, entry) in _carried.items():
        if name not in user_ns:
            out[kind].append(dict(entry, carried=True))
            total += entry.get("size", 0)
    used = {v["pickler"] for v in out["variables"]}
    out.update(bytes=total, written=written, writtenBytes=written_bytes,
               python=platform.python_version(), picklers=_versions(used))
    return out


def _top_names(ns):
    return {n for n in ns if not n.startswith("_")}


def _store(name, data, pickler, blobs_root, stored):
    """The manifest entry for one pickled variable, and whether its blob is new."""
    sha256 = _blobs.sha256_hex(data)
    alias = _aliases.get(name)
    if alias and alias[0] == sha256:
        return dict(alias[1]), False
    if sha256 in stored:
        size, new = len(data), False
    else:
        _, size, new = _blobs.put(blobs_root, data, sha256)
    return {"name": name, "sha256": sha256, "size": size, "pickler": pickler}, new


def restore(manifest, blobs_root, user_ns=None):
    """Load a manifest's modules and variables into the namespace; each one fails alone.

    Every blob's hash is checked before it is unpickled, since unpickling runs code.
    Returns ``{restored: [name], failed: [{name, reason}]}``.
    """
    if user_ns is None:
        user_ns, _ = _shell_namespace()
    _carried.clear()
    _aliases.clear()
    restored, failed, loaded = [], [], []
    for entry in manifest.get("modules", []):
        try:
            user_ns[entry["name"]] = importlib.import_module(entry["module"])
            restored.append(entry["name"])
        except Exception as e:
            failed.append({"name": entry["name"], "reason": _reason(f"module {entry['module']}", e)})
            _carried[entry["name"]] = ("modules", _plain(entry))
    for entry in manifest.get("variables", []):
        try:
            data = _blobs.get(blobs_root, entry["sha256"])
            user_ns[entry["name"]] = _picklers.loads(data, entry["pickler"], user_ns)
            restored.append(entry["name"])
            loaded.append(entry)
        except Exception as e:
            failed.append({"name": entry["name"], "reason": _reason(entry.get("pickler", "?"), e)})
            _carried[entry["name"]] = ("variables", _plain(entry))
    _remember_aliases(user_ns, loaded)
    return {"restored": restored, "failed": failed}


def _remember_aliases(user_ns, entries):
    top_names = _top_names(user_ns)
    for entry in entries:
        if entry["pickler"] == "pickle":
            continue  # the C pickler's output survives a round trip unchanged
        try:
            data, _ = _picklers.dumps(user_ns[entry["name"]], user_ns, top_names)
        except Exception:
            continue
        sha256 = _blobs.sha256_hex(data)
        if sha256 != entry["sha256"]:
            _aliases[entry["name"]] = (sha256, _plain(entry))


def _plain(entry):
    return {k: v for k, v in entry.items() if k != "carried"}


class _Json:
    """Read back through ``user_expressions``: ``_repr_json_`` carries the data, repr stays short."""

    def __init__(self, data):
        self.data = data

    def _repr_json_(self):
        return self.data

    def __repr__(self):
        return "<recur snapshot result>"


def snapshot_for_host(args_json):
    """``snapshot`` with JSON arguments ``{session_id, blobs_root, max_variable_bytes, max_total_bytes, stored}``.

    Answers ``{unbound: <bound session or None>}`` instead when this process was not bound to
    ``session_id``: a kernel restarted behind the host's back holds an empty namespace, and
    saving that would log an empty snapshot as the session's latest.
    """
    args = json.loads(args_json)
    bound = _session.session_id()
    if bound != args.pop("session_id"):
        return _Json({"unbound": bound})
    args["stored"] = frozenset(args.get("stored", ()))
    started = time.perf_counter()
    result = snapshot(**args)
    result["seconds"] = time.perf_counter() - started
    return _Json(result)


def restore_for_host(args_json):
    """``restore`` with JSON arguments ``{manifest, blobs_root}``."""
    started = time.perf_counter()
    result = restore(**json.loads(args_json))
    result["seconds"] = time.perf_counter() - started
    return _Json(result)
