"""``files``: each helper and each refusal, in a temporary workspace (a git repo or a plain directory)."""

import os
import shutil
import subprocess
import tempfile
import unittest

from recur_kernel import _files
from recur_kernel._files import Files

files = Files()


class _Workspace(unittest.TestCase):
    """Runs each test with the working directory in a fresh temporary workspace."""

    git = False

    def setUp(self):
        self.root = os.path.realpath(tempfile.mkdtemp(prefix="ws-"))
        self.old_cwd = os.getcwd()
        os.chdir(self.root)
        if self.git:
            subprocess.run(["git", "init", "-q"], check=True)

    def tearDown(self):
        os.chdir(self.old_cwd)
        shutil.rmtree(self.root)

    def put(self, rel, content):
        os.makedirs(os.path.dirname(rel) or ".", exist_ok=True)
        with open(rel, "wb" if isinstance(content, bytes) else "w") as f:
            f.write(content)


class ReadTest(_Workspace):
    def test_reads_the_whole_file_or_an_inclusive_1_based_line_range(self):
        self.put("a.txt", "one\ntwo\r\nthree\nfour")
        self.assertEqual(files.read("a.txt"), "one\ntwo\r\nthree\nfour")
        self.assertEqual(files.read("a.txt", 2, 3), "two\r\nthree\n")
        self.assertEqual(files.read("a.txt", start=4), "four")
        self.assertEqual(files.read("a.txt", end=1), "one\n")
        self.assertEqual(files.read(os.path.join(self.root, "a.txt"), 1, 1), "one\n")

    def test_refuses_bad_ranges_with_the_reason(self):
        self.put("a.txt", "one\ntwo\n")
        with self.assertRaisesRegex(ValueError, r"start \(5\) is past the end of 'a.txt' \(2 lines\)"):
            files.read("a.txt", 5)
        with self.assertRaisesRegex(ValueError, r"start must be a line number >= 1 \(1-based\), not 0"):
            files.read("a.txt", 0)
        with self.assertRaisesRegex(ValueError, r"end \(1\) is before start \(2\)"):
            files.read("a.txt", 2, 1)

    def test_missing_file_and_directory_are_named(self):
        os.mkdir("d")
        with self.assertRaisesRegex(FileNotFoundError, r"files.read: no such file: 'nope.txt'") as cm:
            files.read("nope.txt")
        self.assertEqual(cm.exception.filename, os.path.join(self.root, "nope.txt"))
        with self.assertRaisesRegex(IsADirectoryError, r"'d' is a directory"):
            files.read("d")

    def test_binary_files_are_refused(self):
        self.put("img.bin", b"\x89PNG\r\n\x00\x00data")
        self.put("latin1.txt", "caf\xe9\n".encode("latin-1"))
        for name in ("img.bin", "latin1.txt"):
            with self.assertRaisesRegex(ValueError, rf"'{name}' is a binary file"):
                files.read(name)

    def test_a_huge_read_stops_at_a_line_boundary_with_a_note_naming_the_next_start(self):
        line = "x" * 99 + "\n"
        self.put("big.txt", line * 3000)
        text = files.read("big.txt")
        self.assertLess(len(text), _files.READ_MAX_CHARS + 200)
        self.assertTrue(text.startswith(line * 1000))
        self.assertIn("[files.read: stopped after line 1000 at 100000 characters; files.read('big.txt', start=1001) reads on]", text)
        self.assertEqual(files.read("big.txt", 1001, 1001), line)

    def test_a_line_longer_than_the_bound_is_cut_without_reading_it_whole(self):
        long_line = "a" + "é" * _files.LINE_MAX_BYTES  # é is 2 bytes: the bytes bound falls inside one
        self.put("min.js", f"{long_line}\nnext\n".encode("utf-8"))
        text = files.read("min.js")
        self.assertEqual(text, "a" + "é" * (_files.READ_MAX_CHARS - 1) + "\n[files.read: line 1 is longer than 100000 characters and is cut here; "
                               "files.read('min.js', start=2) reads on]")
        self.assertEqual(files.read("min.js", 2), "next\n")


class WriteEditTest(_Workspace):
    def test_write_creates_parents_and_replaces(self):
        files.write("src/pkg/mod.py", "x = 1\n")
        files.write("src/pkg/mod.py", "x = 2\n")
        with open("src/pkg/mod.py") as f:
            self.assertEqual(f.read(), "x = 2\n")
        with self.assertRaisesRegex(TypeError, "text must be a string, not bytes"):
            files.write("b.txt", b"raw")
        with self.assertRaisesRegex(IsADirectoryError, "'src' is a directory"):
            files.write("src", "x")

    def test_edit_replaces_exactly_one_match(self):
        self.put("m.py", "def f():\n    return 1\n")
        files.edit("m.py", "return 1", "return 2")
        self.assertEqual(files.read("m.py"), "def f():\n    return 2\n")

    def test_edit_says_how_many_matches_when_not_one_and_leaves_the_file(self):
        self.put("m.py", "a = 1\na = 1\n")
        with self.assertRaisesRegex(ValueError, r"old occurs 0 times in 'm.py', not exactly once"):
            files.edit("m.py", "b = 1", "b = 2")
        with self.assertRaisesRegex(ValueError, r"old occurs 2 times in 'm.py', not exactly once; include more surrounding text"):
            files.edit("m.py", "a = 1", "a = 2")
        self.assertEqual(files.read("m.py"), "a = 1\na = 1\n")

    def test_edit_refuses_a_file_over_its_size_bound(self):
        self.put("huge.txt", "x" * 100)
        old, _files.EDIT_MAX_BYTES = _files.EDIT_MAX_BYTES, 10
        try:
            with self.assertRaisesRegex(ValueError, r"'huge.txt' is 100 bytes, over the 10 files.edit works on"):
                files.edit("huge.txt", "x", "y")
        finally:
            _files.EDIT_MAX_BYTES = old

    def test_edit_refuses_missing_binary_and_empty_old(self):
        self.put("blob", b"\x00\x01abc")
        with self.assertRaisesRegex(FileNotFoundError, "files.edit: no such file: 'gone.py'"):
            files.edit("gone.py", "a", "b")
        with self.assertRaisesRegex(ValueError, "'blob' is a binary file"):
            files.edit("blob", "abc", "def")
        self.put("t.txt", "text")
        with self.assertRaisesRegex(ValueError, "old must not be empty"):
            files.edit("t.txt", "", "x")


class _ListingCases:
    """What search and tree must show, in a git repo and in a plain directory alike."""

    def layout(self):
        self.put(".gitignore", "*.log\nbuild/\n/top-only.txt\n!keep.log\n")
        self.put("src/.gitignore", "generated/\n")
        self.put("src/app.py", "def main():\n    return 'needle'\n")
        self.put("src/util.py", "NEEDLE = 'needle'\n")
        self.put("src/generated/out.py", "needle\n")
        self.put("src/deep/er/leaf.txt", "needle in a leaf\n")
        self.put("build/artifact.py", "needle\n")
        self.put("debug.log", "needle\n")
        self.put("keep.log", "needle kept\n")
        self.put("top-only.txt", "needle\n")
        self.put("src/top-only.txt", "needle not anchored here\n")
        self.put("data.bin", b"needle\x00\x01")

    def test_search_honours_nested_gitignore_and_skips_binaries(self):
        self.layout()
        got = [(m.path, m.line) for m in files.search("needle")]
        self.assertEqual(got, [
            ("keep.log", 1), ("src/app.py", 2), ("src/deep/er/leaf.txt", 1), ("src/top-only.txt", 1), ("src/util.py", 1),
        ])
        self.assertEqual(str(files.search(r"^NEEDLE")), "src/util.py:1: NEEDLE = 'needle'")

    def test_search_glob_filters_by_name_or_path(self):
        self.layout()
        self.assertEqual([m.path for m in files.search("needle", glob="*.py")], ["src/app.py", "src/util.py"])
        self.assertEqual([m.path for m in files.search("needle", glob="src/deep/*")], ["src/deep/er/leaf.txt"])

    def test_search_is_capped_with_a_note(self):
        self.put("many.txt", "hit\n" * 50)
        found = files.search("hit", max_matches=10)
        self.assertEqual((len(found), found.truncated), (10, True))
        self.assertTrue(str(found).endswith("[files.search: stopped at 10 matches; narrow the pattern or the glob]"))
        self.assertEqual(str(files.search("absent")), "[files.search: no matches]")

    def test_search_refuses_a_bad_regex(self):
        with self.assertRaisesRegex(ValueError, r"files.search: bad pattern '\(': "):
            files.search("(")

    def test_tree_lists_to_depth_ignoring_ignored_paths(self):
        self.layout()
        lines = files.tree().split("\n")
        self.assertEqual(lines, [".gitignore", "data.bin", "keep.log", "src/", "  .gitignore", "  app.py", "  deep/  (1 files)", "  top-only.txt", "  util.py"])
        self.assertEqual(files.tree(depth=1).split("\n"), [".gitignore", "data.bin", "keep.log", "src/  (5 files)"])
        self.assertNotIn(".git/", files.tree(depth=5))
        with self.assertRaisesRegex(ValueError, "depth must be an int >= 1"):
            files.tree(0)


class GitListingTest(_ListingCases, _Workspace):
    git = True

    def test_git_excludes_in_info_exclude_count_too(self):
        self.put("secret.txt", "needle\n")
        self.put(".git/info/exclude", "secret.txt\n")
        self.assertEqual(files.search("needle").__len__(), 0)


class PlainListingTest(_ListingCases, _Workspace):
    git = False

    def test_a_dot_git_dir_is_never_listed_even_without_git(self):
        self.put(".git/config", "needle\n")
        self.assertEqual(len(files.search("needle")), 0)


if __name__ == "__main__":
    unittest.main()
