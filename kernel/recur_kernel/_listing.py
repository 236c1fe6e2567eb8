"""The workspace's files as ``files.search`` and ``files.tree`` see them: what git would not ignore.

In a git work tree git itself lists them (tracked plus untracked-not-ignored, so nested
``.gitignore``, ``.git/info/exclude`` and the global excludes all count). Anywhere else, or where
git cannot run, a walk applies the ``.gitignore`` files it meets, each to its own directory and
below. ``.git/`` is never listed.
"""

import os
import re
import subprocess

GIT_TIMEOUT_S = 30


def list_files(root):
    """Relative POSIX paths of the regular files under ``root`` that are not ignored, sorted."""
    listed = _git_listing(root)
    if listed is None:
        listed = _walk_listing(root)
    return sorted(p for p in listed if os.path.isfile(os.path.join(root, p)))


def _git_listing(root):
    # safe.directory: the workspace may belong to another uid than the kernel's.
    cmd = ["git", "-c", "safe.directory=*", "ls-files", "--cached", "--others", "--exclude-standard", "-z"]
    try:
        out = subprocess.run(cmd, cwd=root, capture_output=True, timeout=GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    paths = out.stdout.decode("utf-8", "surrogateescape").split("\0")
    return {p for p in paths if p and not _in_git_dir(p)}


def _in_git_dir(path):
    return ".git" in path.split("/")


def _walk_listing(root):
    found = set()
    rules_by_dir = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir
        rules = list(rules_by_dir.get(rel_dir, []))
        if ".gitignore" in filenames:
            rules += _parse_gitignore(os.path.join(dirpath, ".gitignore"), rel_dir)
        kept_dirs = []
        for d in sorted(dirnames):
            rel = f"{rel_dir}/{d}" if rel_dir else d
            if d != ".git" and not _ignored(rules, rel, True):
                kept_dirs.append(d)
                rules_by_dir[rel] = rules
        dirnames[:] = kept_dirs
        for f in filenames:
            rel = f"{rel_dir}/{f}" if rel_dir else f
            if not _ignored(rules, rel, False):
                found.add(rel)
    return found


def _parse_gitignore(path, base):
    """``(regex, negated, dir_only)`` for each pattern line; ``base`` is the file's directory."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    rules = []
    for line in lines:
        line = line.rstrip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        if negated:
            line = line[1:]
        if line.startswith("\\"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        # A slash anywhere but the end anchors the pattern to the .gitignore's directory.
        anchored = "/" in line
        body = _glob_regex(line.lstrip("/"))
        prefix = re.escape(base + "/") if base else ""
        rx = prefix + ("" if anchored else "(?:.*/)?") + body
        rules.append((re.compile(rx + r"\Z", re.DOTALL), negated, dir_only))
    return rules


def _glob_regex(glob):
    out, i = [], 0
    while i < len(glob):
        c = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("/**", i) and i + 3 == len(glob):
            out.append("/.*")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[" and glob.find("]", i + 2) != -1:
            end = glob.index("]", i + 2)
            cls = glob[i + 1:end].replace("\\", "\\\\")
            out.append("[^" + cls[1:] + "]" if cls.startswith("!") else "[" + cls + "]")
            i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return "".join(out)


def _ignored(rules, rel, is_dir):
    """The last matching rule decides, as in git; a directory's exclusion covers what is inside it
    because the walk never enters it."""
    verdict = False
    for rx, negated, dir_only in rules:
        if dir_only and not is_dir:
            continue
        if rx.match(rel):
            verdict = not negated
    return verdict
