"""The regex format: named groups, lines it does not match, and patterns refused up front."""

from __future__ import annotations

from pathlib import Path

from bot.linters.formats.regex import problem
from bot.model import Severity, Span
from tests.linters.formats_helpers import read

PATTERN = (r"(?P<file>[^:]+):(?P<line>\d+):(?:(?P<column>\d+):)? (?P<severity>\w+) "
           r"\[(?P<code>[\w-]+)\] (?P<message>.*)")


def test_groups_and_unmatched_lines(tmp_path: Path) -> None:
    out = "a.c:3:5: error [no-x] bad x\nsummary: 2 problems\nb.c:7: note [y] fine\n"
    got = read("regex", tmp_path, out, err="c.c:0: error [z] no line\nd.c:1:2: warning [w] on stderr\n",
               pattern=PATTERN)
    assert [(f.path, f.rule, f.severity, f.message, f.span) for f in got] == [
        ("a.c", "no-x", Severity.ERROR, "bad x", Span(3, 5, 3, 5)),
        ("b.c", "y", Severity.INFO, "fine", Span(7, 1, 8, 1)),
        ("d.c", "w", Severity.WARNING, "on stderr", Span(1, 2, 1, 2)),
    ]


def test_patterns_are_checked() -> None:
    assert problem(PATTERN) is None
    assert problem("(") is not None and problem("(").startswith("not a regular expression")
    assert problem(r"(?P<file>.+):(?P<line>\d+)") == "needs the named group(s) (?P<message>...)"
    assert problem(r"(?P<file>.+):(?P<line>\d+) (?P<message>.*) (?P<col>\d+)") == (
        "unknown named group 'col'; known: file, line, message, column, end_line, end_column, "
        "severity, code")
