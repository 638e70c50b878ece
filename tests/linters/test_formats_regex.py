"""The regex format: named groups and lines it does not match (the pattern is checked with the
settings: tests/test_config.py)."""

from __future__ import annotations

from pathlib import Path

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
