"""The pickler chain for one variable: pickle protocol 5, then cloudpickle, then dill.

The C pickler is ~30x faster than dill's pure-Python one, so it goes first. Its output is kept
only when it holds no ``__main__`` reference: a function, class or instance of a class defined
in the namespace pickles *by name* there, and would load only if that name already exists.
cloudpickle pickles those by value; dill is the last resort (locks, threads, ...).

Functions defined in the namespace keep the namespace as their globals after a restore (not a
private copy, so they see later assignments), and do not capture other top-level variables:
those are saved, or reported lost, on their own.
"""

import copyreg
import functools
import io
import pickle
import socket

PROTOCOL = 5

# Open files and sockets. Restoring these would mislead: cloudpickle turns an open file into a
# StringIO of its text, dill reopens it by path (truncating a file opened for writing).
# In-memory streams (BytesIO, StringIO) pickle fine and are not listed.
_REFUSED = (io.FileIO, io.BufferedReader, io.BufferedWriter, io.BufferedRandom, io.BufferedRWPair, io.TextIOWrapper, socket.socket)


class TooLarge(Exception):
    """Pickling passed the cap; ``size`` is how far it got (a lower bound of the real size)."""

    def __init__(self, size):
        super().__init__(f"more than {size} bytes")
        self.size = size


class Refused(TypeError):
    """An object no pickler may save."""


class _Capped(io.BytesIO):
    def __init__(self, cap):
        super().__init__()
        self._cap = cap

    def write(self, b):
        n = super().write(b)
        if self._cap is not None and self.tell() > self._cap:
            raise TooLarge(self.tell())
        return n


class _LiveNamespace:
    """Stands for "the namespace being restored into" inside a pickled function."""

    def __reduce__(self):
        return (live_namespace, ())


LIVE_NAMESPACE = _LiveNamespace()
_target = None
_MISSING = object()


def live_namespace():
    if _target is None:
        raise pickle.UnpicklingError("namespace functions load only through recur_kernel's restore")
    return _target


class _ModuleLike:
    """What dill reads ``__main__`` from, pointed at the namespace instead."""

    def __init__(self, ns):
        self.__dict__ = ns


def _refuse(obj):
    if isinstance(obj, _REFUSED):
        raise Refused(f"cannot snapshot an open {type(obj).__name__}; reopen it after a restore")


@functools.cache
def _cloudpickler_class():
    import cloudpickle

    class NamespacePickler(cloudpickle.Pickler):
        def __init__(self, file, ns, top_names):
            super().__init__(file, protocol=PROTOCOL)
            self._ns = ns
            self._top = top_names

        def reducer_override(self, obj):
            _refuse(obj)
            if isinstance(obj, type) and getattr(obj, "__module__", None) == "__main__":
                # Pickling an instance caches __slotnames__ in its class; do it first, so the
                # class pickles the same before and after its first instance does.
                copyreg._slotnames(obj)
            return super().reducer_override(obj)

        def _dynamic_function_reduce(self, func):
            make, newargs, (state, slots), *rest = super()._dynamic_function_reduce(func)
            if func.__globals__ is self._ns:
                kept = {k: v for k, v in slots["__globals__"].items() if k not in self._top}
                slots = dict(slots, __globals__=kept)
                newargs = (newargs[0], LIVE_NAMESPACE, *newargs[2:])
            return (make, newargs, (state, slots), *rest)

    return NamespacePickler


def _pickle(file, value, ns, top_names):
    pickle.Pickler(file, protocol=PROTOCOL).dump(value)


def _cloudpickle(file, value, ns, top_names):
    _cloudpickler_class()(file, ns, top_names).dump(value)


def _dill(file, value, ns, top_names):
    import dill

    p = dill.Pickler(file, protocol=PROTOCOL)
    p._main = p._original_main = _ModuleLike(ns)
    p._main_modified = True
    p.dump(value)


def _run(dump, value, ns, top_names, cap):
    buf = _Capped(cap)
    dump(buf, value, ns, top_names)
    return buf.getvalue()


def dumps(value, ns, top_names, cap=None):
    """``(bytes, pickler name)`` for one value of ``ns``. Raises TooLarge past ``cap`` bytes,
    Refused, or the last pickler's error. ``top_names`` are the namespace's own variables."""
    _refuse(value)
    try:
        data = _run(_pickle, value, ns, top_names, cap)
        if b"__main__" not in data:
            return data, "pickle"
        error = pickle.PicklingError("refers to __main__ by name; neither cloudpickle nor dill is installed")
    except TooLarge:
        raise
    except Exception as e:
        error = e
    for name, dump in (("cloudpickle", _cloudpickle), ("dill", _dill)):
        try:
            return _run(dump, value, ns, top_names, cap), name
        except ImportError:
            continue
        except (TooLarge, Refused):
            raise
        except Exception as e:
            error = e
    raise error


def loads(data, pickler, ns):
    """Unpickle one value for ``ns``; namespace functions get ``ns`` as their globals."""
    global _target
    builtins_before = ns.get("__builtins__", _MISSING)
    _target = ns
    try:
        if pickler == "dill":
            import dill

            u = dill.Unpickler(io.BytesIO(data))
            u._main = _ModuleLike(ns)
            return u.load()
        return pickle.loads(data)
    finally:
        _target = None
        # cloudpickle sets __builtins__ in the globals it rebuilds; IPython's is the module.
        if builtins_before is _MISSING:
            ns.pop("__builtins__", None)
        else:
            ns["__builtins__"] = builtins_before

