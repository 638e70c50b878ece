"""The diff parser and line maps, on real git output where git produces it."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from bot import git
from bot.revisions.diff import (
    ADDED,
    MODIFIED,
    UNCHANGED,
    WS_CHANGED,
    _similar_pairs,
    hunk_lines,
    line_map,
    norm,
    parse_patch,
)
from tests.conftest import GitRepo


def patches(repo: GitRepo) -> dict[str, object]:
    raw = git.diff_unified(repo.path, "main", "HEAD")
    return {p.path: p for p in parse_patch(raw)}


def test_unusual_names_renames_deletions_binary_and_modes(repo: GitRepo) -> None:
    repo.commit({"old name.py": "a\nb\nc\n" * 5, "gone.txt": "x\n", "tab\tname.txt": "t\n",
                 "bin.dat": b"\x00\x01", "mode.sh": "echo\n"}, "base")
    repo.branch("feature")
    repo.mv("old name.py", "nëw dir/new name.py")
    repo.write({"gone.txt": None, "bin.dat": b"\x00\x02", "tab\tname.txt": "t\nu\n"})
    (repo.path / "mode.sh").chmod(0o755)
    repo.commit()
    got = patches(repo)
    renamed = got["nëw dir/new name.py"]
    assert renamed.status == "renamed" and renamed.old_path == "old name.py"  # type: ignore[attr-defined]
    assert got["gone.txt"].status == "deleted"  # type: ignore[attr-defined]
    assert got["bin.dat"].binary  # type: ignore[attr-defined]
    assert got["tab\tname.txt"].status == "modified"  # type: ignore[attr-defined]
    assert got["mode.sh"].status == "modified"  # type: ignore[attr-defined]


def test_line_map_statuses() -> None:
    base = ["def f():\n", "  return 1\n", "x = 1\n", "y = 2\n", "z = 3\n"]
    head = ["def f():\n", "    return 1\n", "x = 10\n", "new = 0\n", "z = 3\n"]
    raw = (b"diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n"
           b"@@ -2,3 +2,3 @@\n-  return 1\n-x = 1\n-y = 2\n+    return 1\n+x = 10\n+new = 0\n")
    (patch,) = parse_patch(raw)
    lm = line_map(patch, len(base), len(head))
    assert [lm.head_status(n) for n in range(1, 6)] == [UNCHANGED, WS_CHANGED, MODIFIED, MODIFIED, UNCHANGED]
    assert lm.base_to_head[2] == 2 and lm.base_to_head[5] == 5 and lm.base_to_head_mod[3] == 3
    assert hunk_lines(lm) == frozenset(range(1, 6))


def test_pure_insertion_and_deletion_hunks() -> None:
    raw = (b"diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -0,0 +1,2 @@\n+n1\n+n2\n"
           b"@@ -5,2 +6,0 @@\n-d1\n-d2\n")
    (patch,) = parse_patch(raw)
    lm = line_map(patch, 8, 8)
    assert lm.head_status(1) == ADDED and lm.head_status(2) == ADDED
    assert lm.base_to_head[1] == 3 and lm.base_to_head[4] == 6 and lm.base_to_head[7] == 7
    assert 5 not in lm.base_to_head and 6 not in lm.base_to_head
    assert 7 in hunk_lines(lm)  # context around the deletion is commentable


def test_norm_strips_whitespace_and_suppressions() -> None:
    assert norm("  x = 1  # noqa: E501\r\n") == norm("x=1\n") == "x=1"
    assert norm("foo(); // eslint-disable-line no-undef") == "foo();"


def _plain_similar_pairs(old: list[str], new: list[str]) -> list[tuple[int, int]]:
    """The definition `_similar_pairs` implements with its bounds: every ratio computed."""
    pairs: list[tuple[int, int]] = []
    start = 0
    for i in range(len(old)):
        best, best_j = 0.6, None
        for j in range(start, len(new)):
            ratio = difflib.SequenceMatcher(None, old[i], new[j], autojunk=False).ratio()
            if ratio >= best:
                best, best_j = ratio, j
        if best_j is not None:
            pairs.append((i, best_j))
            start = best_j + 1
    return pairs


_PIECES = st.sampled_from(["x", "=", "foo(", "a,", "b", ")", "return", "None", "", "alpha_value"])
_LINES = st.lists(st.lists(_PIECES, max_size=6).map("".join), max_size=8)


@settings(max_examples=300, deadline=None)
@given(_LINES, _LINES)
def test_similar_pairs_skip_only_what_cannot_pair(old: list[str], new: list[str]) -> None:
    assert _similar_pairs(old, new, 0, len(old), 0, len(new)) == _plain_similar_pairs(old, new)
