"""Checkstyle input: severities, whole-line and whole-file errors, and garbage."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.errors import GarbageOutput
from bot.model import Severity, Span
from tests.linters.formats_helpers import read

DOC = """<?xml version="1.0" encoding="UTF-8"?>
<checkstyle version="4.3">
  <file name="src/A.java">
    <error line="3" column="7" severity="warning" message="w &amp; x" source="Rule.One"/>
    <error line="4" severity="info" message="whole line"/>
    <error line="5" column="1" severity="ignore" message="dropped"/>
    <error severity="error" message="whole file" source="Parse"/>
  </file>
  <file name="/elsewhere/B.java"><error line="1" message="outside"/></file>
</checkstyle>
"""


def test_checkstyle(tmp_path: Path) -> None:
    got = read("checkstyle", tmp_path, DOC)
    assert [(f.path, f.rule, f.severity, f.message, f.span, f.file_level) for f in got] == [
        ("src/A.java", "Rule.One", Severity.WARNING, "w & x", Span(3, 7, 3, 7), False),
        ("src/A.java", "mine", Severity.INFO, "whole line", Span(4, 1, 5, 1), False),
        ("src/A.java", "Parse", Severity.ERROR, "whole file", Span(1, 1, 1, 1), True),
    ]


@pytest.mark.parametrize("out", ["", "plain text", "<report/>", "<checkstyle><file name='a'>"])
def test_garbage_fails(tmp_path: Path, out: str) -> None:
    with pytest.raises(GarbageOutput):
        read("checkstyle", tmp_path, out)
