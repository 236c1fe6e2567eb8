"""``files``: read, write, edit, search and list the workspace, in the kernel itself (no host call).

Paths are relative to the kernel's working directory (the session's workspace) or absolute.
Line numbers are 1-based and ranges inclusive, as an editor shows them. What would swamp a
prompt is bounded, with a note that says so: a read stops after ``READ_MAX_CHARS``, a search
after ``max_matches`` matches, a tree after ``TREE_MAX_ENTRIES`` entries.
"""

import collections
import fnmatch
import os
import re

from ._listing import list_files

READ_MAX_CHARS = 100_000
# A line longer than this many bytes is cut (a UTF-8 character is at most 4 bytes).
LINE_MAX_BYTES = 4 * READ_MAX_CHARS
EDIT_MAX_BYTES = 64 * 1024 * 1024
SNIFF_BYTES = 8192
SEARCH_MAX_FILE_BYTES = 2 * 1024 * 1024
SEARCH_LINE_CHARS = 300
TREE_MAX_ENTRIES = 500


def _resolve(op, path):
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"files.{op}: path must be a string, not {type(path).__name__}")
    return os.path.join(os.getcwd(), os.fspath(path))


def _text_path(op, path):
    """The file's full path, refused when it is missing or a directory."""
    full = _resolve(op, path)
    if not os.path.exists(full):
        raise FileNotFoundError(2, f"files.{op}: no such file: {path!r} (relative paths start at {os.getcwd()})", full)
    if os.path.isdir(full):
        raise IsADirectoryError(21, f"files.{op}: {path!r} is a directory; files.tree() lists directories", full)
    return full


def _is_binary(head):
    return b"\0" in head


def _refuse_binary(op, path):
    return ValueError(f"files.{op}: {path!r} is a binary file (not UTF-8 text); files.{op} works on text only")


class Match(collections.namedtuple("Match", "path line text")):
    """One matching line: its file (relative to the search root), 1-based line number and text."""

    def __str__(self):
        return f"{self.path}:{self.line}: {self.text}"


class Matches(list):
    """``files.search``'s matches; ``truncated`` when more matched than were kept."""

    truncated = False

    def __str__(self):
        lines = [str(m) for m in self]
        if self.truncated:
            lines.append(f"[files.search: stopped at {len(self)} matches; narrow the pattern or the glob]")
        return "\n".join(lines) or "[files.search: no matches]"

    __repr__ = __str__


class Tree(str):
    """``files.tree``'s listing; shown as it is, not quoted, as a cell's last value."""

    def __repr__(self):
        return str(self)


class Files:
    def read(self, path, start=None, end=None):
        """Lines ``start``..``end`` of a text file (1-based, inclusive; default the whole file), as one
        string with its line endings. Past ``READ_MAX_CHARS`` the text stops at a line boundary and
        ends with a ``[files.read: ...]`` note naming the next ``start``."""
        for name, v in (("start", start), ("end", end)):
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 1):
                raise ValueError(f"files.read: {name} must be a line number >= 1 (1-based), not {v!r}")
        if start is not None and end is not None and end < start:
            raise ValueError(f"files.read: end ({end}) is before start ({start})")
        full = _text_path("read", path)
        first = start or 1
        kept, size, n = [], 0, 0
        with open(full, "rb") as f:
            if _is_binary(f.read(SNIFF_BYTES)):
                raise _refuse_binary("read", path)
            f.seek(0)
            for n, (raw, whole) in enumerate(_bounded_lines(f), 1):
                if end is not None and n > end:
                    break
                if n < first:
                    continue
                line = _decode_line(raw, whole, path)
                if kept and size + len(line) > READ_MAX_CHARS:
                    last = first + len(kept) - 1
                    kept.append(f"\n[files.read: stopped after line {last} at {READ_MAX_CHARS} characters; "
                                f"files.read({os.fspath(path)!r}, start={last + 1}) reads on]")
                    return "".join(kept)
                if not whole or len(line) > READ_MAX_CHARS:
                    return (f"{line[:READ_MAX_CHARS]}\n[files.read: line {n} is longer than {READ_MAX_CHARS} characters and is cut here; "
                            f"files.read({os.fspath(path)!r}, start={n + 1}) reads on]")
                kept.append(line)
                size += len(line)
        if start is not None and n < start:
            raise ValueError(f"files.read: start ({start}) is past the end of {path!r} ({n} lines)")
        return "".join(kept)

    def write(self, path, text):
        """Write ``text`` to ``path`` as UTF-8, replacing it, creating missing parent directories."""
        if not isinstance(text, str):
            raise TypeError(f"files.write: text must be a string, not {type(text).__name__}")
        full = _resolve("write", path)
        if os.path.isdir(full):
            raise IsADirectoryError(21, f"files.write: {path!r} is a directory", full)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8", newline="") as f:
            f.write(text)

    def edit(self, path, old, new):
        """Replace the one occurrence of ``old`` in a text file with ``new``; a ``ValueError`` says how
        many there were when that is not exactly one (include more context to make it unique)."""
        if not isinstance(old, str) or not isinstance(new, str):
            raise TypeError("files.edit: old and new must be strings")
        if not old:
            raise ValueError("files.edit: old must not be empty")
        full = _text_path("edit", path)
        if os.path.getsize(full) > EDIT_MAX_BYTES:
            raise ValueError(f"files.edit: {path!r} is {os.path.getsize(full)} bytes, over the {EDIT_MAX_BYTES} files.edit works on")
        with open(full, "rb") as f:
            data = f.read()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise _refuse_binary("edit", path) from None
        if _is_binary(data[:SNIFF_BYTES]):
            raise _refuse_binary("edit", path)
        count = text.count(old)
        if count != 1:
            hint = "check the text (whitespace, indentation)" if count == 0 else "include more surrounding text so exactly one matches"
            raise ValueError(f"files.edit: old occurs {count} times in {path!r}, not exactly once; {hint}")
        with open(full, "w", encoding="utf-8", newline="") as f:
            f.write(text.replace(old, new, 1))

    def search(self, pattern, glob=None, max_matches=200):
        """Lines matching the regex ``pattern`` (Python ``re``) in the workspace's text files that
        .gitignore does not ignore, optionally only files matching ``glob`` (``*.py`` matches by
        file name; a glob with ``/`` matches the relative path). Returns a list of ``Match(path,
        line, text)``; it stops at ``max_matches`` (``.truncated`` is then True). Binary files and
        files over 2 MiB are skipped."""
        try:
            rx = re.compile(pattern)
        except (re.error, TypeError) as e:
            raise ValueError(f"files.search: bad pattern {pattern!r}: {e}") from None
        found = Matches()
        for rel in list_files(os.getcwd()):
            if glob is not None and not fnmatch.fnmatchcase(rel if "/" in glob else rel.rsplit("/", 1)[-1], glob):
                continue
            for n, line in _text_lines(rel):
                if rx.search(line):
                    if len(found) == max_matches:
                        found.truncated = True
                        return found
                    found.append(Match(rel, n, line[:SEARCH_LINE_CHARS]))
        return found

    def tree(self, depth=2):
        """The workspace's directories and files to ``depth`` levels, ignoring what .gitignore
        ignores; a directory at the last level shows how many files lie below it."""
        if not isinstance(depth, int) or depth < 1:
            raise ValueError(f"files.tree: depth must be an int >= 1, not {depth!r}")
        below = collections.Counter()
        shown = set()
        for rel in list_files(os.getcwd()):
            parts = rel.split("/")
            for i in range(1, min(len(parts), depth + 1)):
                shown.add("/".join(parts[:i]) + "/")
            if len(parts) <= depth:
                shown.add(rel)
            else:
                below["/".join(parts[:depth]) + "/"] += 1
        lines = []
        for entry in sorted(shown, key=lambda p: p.rstrip("/").split("/")):
            if len(lines) == TREE_MAX_ENTRIES:
                lines.append(f"[files.tree: stopped at {TREE_MAX_ENTRIES} entries; try a smaller depth]")
                break
            level = entry.rstrip("/").count("/")
            name = entry.rstrip("/").rsplit("/", 1)[-1] + ("/" if entry.endswith("/") else "")
            more = f"  ({below[entry]} files)" if entry in below else ""
            lines.append("  " * level + name + more)
        return Tree("\n".join(lines))

    def __repr__(self):
        return "<files: read(path, start=None, end=None), write(path, text), edit(path, old, new), search(pattern, glob=None), tree(depth=2)>"


def _bounded_lines(f):
    """``(bytes, whole)`` for each line of a binary file object: at most ``LINE_MAX_BYTES`` of it, and
    ``whole`` False for a longer line, whose rest is skipped unread into memory."""
    while True:
        raw = f.readline(LINE_MAX_BYTES)
        if not raw:
            return
        whole = raw.endswith(b"\n") or len(raw) < LINE_MAX_BYTES
        rest = raw
        while not whole and rest and not rest.endswith(b"\n"):
            rest = f.readline(LINE_MAX_BYTES)
        yield raw, whole


def _decode_line(raw, whole, path):
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        # A cut line may end inside a character; anything else is not UTF-8 text.
        if not whole and e.end == len(raw) and e.reason == "unexpected end of data":
            return raw[:e.start].decode("utf-8")
        raise _refuse_binary("read", path) from None


def _text_lines(rel):
    """``(line number, line without its ending)`` of a text file; nothing for binary or large ones."""
    try:
        if os.path.getsize(rel) > SEARCH_MAX_FILE_BYTES:
            return
        with open(rel, "rb") as f:
            data = f.read()
    except OSError:
        return
    if _is_binary(data[:SNIFF_BYTES]):
        return
    text = data.decode("utf-8", "replace")
    for n, line in enumerate(text.splitlines(), 1):
        yield n, line
