"""The lines GitHub lets a review comment sit on, read from the pull request's files."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.forges.github.change import MAX_FILES, GitHubChange
from bot.forges.hunks import head_lines
from tests.forges.fakegithub import FakeGitHub


def test_lines_inside_each_files_hunks(fake: FakeGitHub, forge_for: Callable[[], GitHubChange]) -> None:
    fake.s.diff = {"a.py": {1, 2, 3, 10, 11}, "b/c d.py": {5}, "logo.png": set()}
    fake.s.no_patch.add("logo.png")  # binary: GitHub lists it without a patch
    assert forge_for().diff_lines() == {"a.py": frozenset({1, 2, 3, 10, 11}),
                                        "b/c d.py": frozenset({5}), "logo.png": frozenset()}


def test_every_page_is_read(fake: FakeGitHub, forge_for: Callable[[], GitHubChange]) -> None:
    fake.s.diff = {f"f{n:03}.py": {n} for n in range(1, 251)}
    lines = forge_for().diff_lines()
    assert len(lines) == 250 and lines["f250.py"] == frozenset({250})
    assert [c.query["page"] for c in fake.calls] == [["1"], ["2"], ["3"]]


def test_github_lists_at_most_3000_files(fake: FakeGitHub, forge_for: Callable[[], GitHubChange],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    fake.s.diff = {f"f{n:04}.py": {1} for n in range(MAX_FILES + 5)}
    lines = forge_for().diff_lines()
    assert len(lines) == MAX_FILES and len(fake.calls) == MAX_FILES // 100
    assert "at most 3000 files" in capsys.readouterr().out


@pytest.mark.parametrize("patch,lines", [
    ("", set()),
    ("@@ -1,3 +1,4 @@\n a\n+b\n c\n d", {1, 2, 3, 4}),
    ("@@ -10,2 +11,0 @@\n-x\n-y", set()),  # only deletions: nothing on the head side
    ("@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file", {1}),
    ("@@ -5,2 +5,3 @@ def f():\n x\n+--- not a header\n y\n@@ -40,0 +41,2 @@\n+p\n+q", {5, 6, 7, 41, 42}),
])
def test_head_lines_of_a_patch(patch: str, lines: set[int]) -> None:
    assert head_lines(patch) == frozenset(lines)
