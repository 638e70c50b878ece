from __future__ import annotations

from bot.model import Edit, Fix, Span
from bot.render.suggestion import NoSuggestion, Suggestion, block, fence, split_lines, suggest

TEXT = "import os\nimport sys\n\n\ndef f(x):\n    return  x\n"
LINES = split_lines(TEXT)


def fix(*edits: tuple[int, int, int, int, str], path: str = "a.py",
        applicability: str = "safe") -> Fix:
    return Fix("fix it", tuple(Edit(path, Span(*e[:4]), e[4]) for e in edits),
               applicability)  # type: ignore[arg-type]


def test_split_lines_counts_only_newlines() -> None:
    assert split_lines("a\x0cb\r\nc") == ["a\x0cb\r\n", "c"]
    assert split_lines("a\n") == ["a\n"]
    assert split_lines("") == []


def test_single_line_replacement() -> None:
    got = suggest(fix((6, 11, 6, 13, " ")), "a.py", LINES)
    assert got == Suggestion(6, 6, ("    return x",), "fix it", "safe")


def test_whole_line_deletion_is_an_empty_suggestion() -> None:
    got = suggest(fix((1, 1, 2, 1, "")), "a.py", LINES)
    assert isinstance(got, Suggestion)
    assert (got.start_line, got.end_line, got.lines) == (1, 1, ())
    assert block(got.lines, "suggestion") == "```suggestion\n```"


def test_line_emptied_is_not_a_deletion() -> None:
    got = suggest(fix((1, 1, 1, 10, "")), "a.py", LINES)
    assert isinstance(got, Suggestion)
    assert got.lines == ("",)
    assert block(got.lines, "suggestion") == "```suggestion\n\n```"


def test_multi_line_deletion() -> None:
    got = suggest(fix((3, 1, 5, 1, "")), "a.py", LINES)
    assert isinstance(got, Suggestion)
    assert (got.start_line, got.end_line, got.lines) == (3, 4, ())


def test_insertion_anchors_on_the_following_line() -> None:
    got = suggest(fix((5, 1, 5, 1, "@cache\n")), "a.py", LINES)
    assert isinstance(got, Suggestion)
    assert (got.start_line, got.end_line) == (5, 5)
    assert got.lines == ("@cache", "def f(x):")


def test_insertion_after_the_last_line() -> None:
    got = suggest(fix((7, 1, 7, 1, "print(1)\n")), "a.py", LINES)
    assert isinstance(got, Suggestion)
    assert (got.start_line, got.end_line) == (6, 6)
    assert got.lines == ("    return  x", "print(1)")


def test_end_of_file_newline_only_is_not_suggested() -> None:
    lines = split_lines("a = 1\nb = 2")
    got = suggest(fix((2, 6, 2, 6, "\n")), "a.py", lines)
    assert isinstance(got, NoSuggestion)
    assert "end-of-file newline" in got.reason


def test_end_of_file_edit_with_content_change() -> None:
    lines = split_lines("a = 1\nb  = 2")
    got = suggest(fix((2, 2, 2, 4, " "), (2, 7, 2, 7, "\n")), "a.py", lines)
    assert isinstance(got, Suggestion)
    assert got.lines == ("b = 2",)


def test_edit_removing_a_line_break_takes_the_next_line() -> None:
    got = suggest(fix((1, 10, 2, 1, ", ")), "a.py", LINES)
    assert isinstance(got, Suggestion)
    assert (got.start_line, got.end_line, got.lines) == (1, 2, ("import os, import sys",))


def test_adjacent_edits_are_merged_into_one_range() -> None:
    got = suggest(fix((1, 8, 1, 10, "re"), (2, 8, 2, 11, "json")), "a.py", LINES)
    assert isinstance(got, Suggestion)
    assert (got.start_line, got.end_line, got.lines) == (1, 2, ("import re", "import json"))


def test_crlf_lines_keep_no_carriage_return() -> None:
    lines = split_lines("x = 1\r\ny  = 2\r\n")
    got = suggest(fix((2, 2, 2, 4, " ")), "a.py", lines)
    assert isinstance(got, Suggestion)
    assert got.lines == ("y = 2",)


def test_refusals() -> None:
    assert isinstance(suggest(fix((1, 1, 1, 3, "x"), (1, 2, 1, 4, "y")), "a.py", LINES),
                      NoSuggestion)
    assert isinstance(suggest(fix((1, 1, 1, 3, "x"), path="b.py"), "a.py", LINES), NoSuggestion)
    assert isinstance(suggest(fix((1, 1, 1, 3, "x"), applicability="display"), "a.py", LINES),
                      NoSuggestion)
    assert isinstance(suggest(fix((1, 40, 1, 41, "x")), "a.py", LINES), NoSuggestion)
    assert isinstance(suggest(fix((1, 1, 1, 1, "x")), "a.py", []), NoSuggestion)


def test_fence_is_longer_than_any_backtick_run() -> None:
    assert fence("plain") == "```"
    assert fence("a ```` b ` c") == "`````"
    assert block(["x = '```'"], "suggestion") == "````suggestion\nx = '```'\n````"


def test_a_lone_carriage_return_is_not_offered_as_a_suggestion() -> None:
    fix = Fix("cr", (Edit("a.py", Span(1, 1, 1, 2), "\r"),), "safe")
    assert isinstance(suggest(fix, "a.py", split_lines("ab\n")), NoSuggestion)
