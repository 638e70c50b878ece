"""The diff parser and line maps against real `git diff` (as bot.git runs it: -U0, histogram)
on generated file pairs, under generated names: the hunks rebuild the head from the base, the
names read back as written, and the line map pairs only equal lines, in order, once each."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot import git
from bot.revisions.diff import ADDED, UNCHANGED, WS_CHANGED, line_map, norm, parse_patch
from tests.conftest import GitRepo

POOL = ["a = 1\n", "b = 2\n", "    a = 1\n", "a  =  1\n", "return a\n", "\n", "}\n",
        "if a:\n", "x = f(a, b)  # noqa: E501\n", "x = f(a, b)\n", "é = 'ü'\n", "\t\tdeep\n",
        "a = 1\r\n"]
texts = st.lists(st.sampled_from(POOL), max_size=14)
# Names git quotes (spaces, quotes, backslashes, controls, non-ASCII) and plain ones.
names = st.text(alphabet="ab_- .é\"\\\t\n\x01", min_size=1, max_size=8).map(
    lambda s: "f" + s + ".py").filter(lambda s: s.strip() == s)


def rebuilt(base: list[str], hunks: list[tuple[int, int, tuple[str, ...]]]) -> list[str]:
    """`base` with every hunk's new lines put in place of its old ones."""
    out, at = [], 0
    for start, count, new in hunks:
        first = start - 1 if count else start  # a pure insertion names the line before it
        out += base[at:first] + list(new)
        at = first + count
    return out + base[at:]


def strip(lines: list[str]) -> list[str]:
    return [line.rstrip("\n") for line in lines]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts, texts, names)
def test_the_parsed_diff_and_line_map_agree_with_git(base: list[str], head: list[str],
                                                     name: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        repo = GitRepo(Path(folder))
        base_sha = repo.commit({name: "".join(base)}, "base")
        head_sha = repo.commit({name: "".join(head)}, "head")
        patches = parse_patch(git.diff_unified(repo.path, base_sha, head_sha))
    if base == head:
        assert patches == []
        return
    (patch,) = patches
    assert patch.path == name and patch.status == "modified" and not patch.binary
    # The hunks rebuild the head (line endings are what git shows of them: up to the "\n").
    hunks = [(h.old_start, h.old_count, h.new_lines) for h in patch.hunks]
    assert strip(rebuilt(base, hunks)) == strip(head)
    lm = line_map(patch, len(base), len(head))
    pairs = sorted(lm.base_to_head.items())
    assert [h for _, h in pairs] == sorted({h for _, h in pairs})  # in order, once each
    for b, h in pairs:
        if lm.head_status(h) == UNCHANGED:
            assert base[b - 1] == head[h - 1]
        else:
            assert lm.head_status(h) == WS_CHANGED and norm(base[b - 1]) == norm(head[h - 1])
    mapped = {h for _, h in pairs} | set(lm.base_to_head_mod.values())
    for h in range(1, len(head) + 1):
        assert (h in mapped) != (lm.head_status(h) == ADDED), h


def test_the_names_are_ones_git_quotes() -> None:
    """The alphabet above makes git quote a name, so the parser's unquoting is exercised."""
    with tempfile.TemporaryDirectory() as folder:
        repo = GitRepo(Path(folder))
        first = repo.commit({"f\t\".py": "a\n"})
        second = repo.commit({"f\t\".py": "b\n"})
        raw = git.diff_unified(repo.path, first, second)
    assert raw.startswith(b'diff --git "a/f\\t\\".py"')
    assert [p.path for p in parse_patch(raw)] == ["f\t\".py"]
