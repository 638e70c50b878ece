"""Each forge fences suggestions its own way; review and markdown follow the dialect given."""

from __future__ import annotations

import pytest

from bot.forges.github import change as github
from bot.forges.gitlab import change as gitlab
from bot.positions import split_lines
from bot.publishing.policy import place
from bot.render.markdown import parse_marker
from tests.forges.builders import change, finding, result, verdict

TEXT = split_lines("".join(f"v{n} = {n}\n" for n in range(1, 21)))


def test_github_fence_replaces_the_commented_range() -> None:
    assert github.DIALECT.fence(3, 5, 5) == "suggestion"
    assert (github.DIALECT.body_limit, github.DIALECT.ranges) == (65_536, True)


@pytest.mark.parametrize("start,end,anchor,info", [
    (3, 3, 3, "suggestion:-0+0"), (3, 5, 3, "suggestion:-0+2"), (3, 5, 5, "suggestion:-2+0"),
    (2, 9, 4, "suggestion:-2+5"), (1, 101, 1, "suggestion:-0+100")])
def test_gitlab_fence_is_relative_to_the_commented_line(start: int, end: int, anchor: int,
                                                        info: str) -> None:
    assert gitlab.DIALECT.fence(start, end, anchor) == info


@pytest.mark.parametrize("start,end,anchor", [(3, 5, 2), (3, 5, 6), (1, 102, 1)])
def test_gitlab_fence_refuses_what_it_cannot_say(start: int, end: int, anchor: int) -> None:
    with pytest.raises(ValueError):
        gitlab.fence(start, end, anchor)


def two_line_fix() -> list[object]:
    # lines 4-5 joined into one: a suggestion replacing two lines
    return [verdict(finding("a.py", 4, fix=((4, 6, 5, 7, "4 + 5"),)), "fp")]


def test_a_multi_line_suggestion_per_dialect() -> None:
    res = result("c" * 40, two_line_fix(), [change("a.py", range(1, 11))])  # type: ignore[arg-type]
    [on_github] = place(res, {"a.py": TEXT}, dialect=github.DIALECT)
    [on_gitlab] = place(res, {"a.py": TEXT}, dialect=gitlab.DIALECT)
    assert (on_github.start_line, on_github.line) == (4, 5)  # a range comment
    assert "```suggestion\nv4 = 4 + 5\n```" in on_github.body.text  # type: ignore[union-attr]
    assert (on_gitlab.start_line, on_gitlab.line) == (None, 4)  # one line, reaching down
    assert "```suggestion:-0+1\nv4 = 4 + 5\n```" in on_gitlab.body.text  # type: ignore[union-attr]


def test_a_multi_line_finding_sits_on_its_first_line_on_gitlab() -> None:
    res = result("c" * 40, [verdict(finding("a.py", 7, end_line=9), "m")], [change("a.py", range(1, 11))])
    [on_github] = place(res, {"a.py": TEXT}, dialect=github.DIALECT)
    [on_gitlab] = place(res, {"a.py": TEXT}, dialect=gitlab.DIALECT)
    assert (on_github.start_line, on_github.line) == (7, 9)
    assert (on_gitlab.start_line, on_gitlab.line) == (None, 7)


def test_the_body_limit_is_the_dialects() -> None:
    huge = "y = '" + "x" * 100_000 + "'"  # a suggestion is never clipped, only dropped
    res = result("c" * 40, [verdict(finding("a.py", 2, fix=((2, 1, 2, 7, huge),)), "fp")],
                 [change("a.py", range(1, 11))])
    [on_github] = place(res, {"a.py": TEXT}, dialect=github.DIALECT)
    [on_gitlab] = place(res, {"a.py": TEXT}, dialect=gitlab.DIALECT)
    short, long = on_github.body.text, on_gitlab.body.text  # type: ignore[union-attr]
    assert len(short) <= github.DIALECT.body_limit < len(long) <= gitlab.DIALECT.body_limit
    assert huge not in short and huge in long
    assert parse_marker(short) is not None and parse_marker(long) is not None
