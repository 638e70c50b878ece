"""rdjson and rdjsonl input: byte columns, linewise ranges, the result's default severity
(written after its diagnostics), suggestions, and garbage that fails closed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.errors import GarbageOutput
from bot.model import Severity, Span
from tests.linters.formats_helpers import read


def test_rdjson(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("é = 1\nb\n")
    diagnostics = [
        {"message": "bytes", "location": {"path": "a.txt", "range": {
            "start": {"line": 1, "column": 4}, "end": {"line": 1, "column": 5}}},
         "code": {"value": "C1", "url": "https://example.com/C1"},
         "suggestions": [{"range": {"start": {"line": 1, "column": 6}, "end": {"line": 1, "column": 7}},
                          "text": "2"}]},
        {"message": "lines", "severity": 1, "location": {
            "path": str(tmp_path / "a.txt"), "range": {"start": {"line": 1}, "end": {"line": 2}}}},
        {"message": "file", "severity": "INFO", "location": {"path": "a.txt"}},
        {"message": "outside", "location": {"path": "/elsewhere/x"}},
    ]
    out = json.dumps({"diagnostics": diagnostics, "source": {"name": "x"}, "severity": "ERROR"})
    got = read("rdjson", tmp_path, out)
    assert [(f.message, f.rule, f.severity, f.span, f.file_level) for f in got] == [
        ("bytes", "C1", Severity.ERROR, Span(1, 3, 1, 4), False),
        ("lines", "mine", Severity.ERROR, Span(1, 1, 3, 1), False),
        ("file", "mine", Severity.INFO, Span(1, 1, 1, 1), True),
    ]
    assert got[0].url == "https://example.com/C1"
    assert got[0].fix is not None
    assert [(e.span, e.new_text) for e in got[0].fix.edits] == [(Span(1, 5, 1, 6), "2")]


def test_rdjsonl(tmp_path: Path) -> None:
    line = {"message": "m", "location": {"path": "a", "range": {"start": {"line": 3, "column": 2}}},
            "severity": "WARNING"}
    [finding] = read("rdjsonl", tmp_path, json.dumps(line) + "\n\n")
    assert (finding.path, finding.span, finding.severity) == ("a", Span(3, 2, 3, 2), Severity.WARNING)


@pytest.mark.parametrize(("fmt", "out"), [
    ("rdjson", ""), ("rdjson", "[]"), ("rdjson", '{"diagnostics": [{"location": {}}]}'),
    ("rdjson", '{"diagnostics": [3]}'), ("rdjsonl", "{}\n"), ("rdjsonl", "oops\n"),
])
def test_garbage_fails(tmp_path: Path, fmt: str, out: str) -> None:
    with pytest.raises(GarbageOutput):
        read(fmt, tmp_path, out)
