"""SARIF input: columns by the run's columnKind, URIs through originalUriBaseIds (written
after the results), kinds and levels, fixes, and garbage that fails closed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.errors import GarbageOutput
from bot.model import Severity, Span
from tests.linters.formats_helpers import read


def log(results: list[dict[str, Any]], **run: Any) -> str:
    rules = [{"id": "R1", "helpUri": "https://example.com/R1"}]
    return json.dumps({"version": "2.1.0", "runs": [
        {"tool": {"driver": {"name": "t", "rules": rules}}, "results": results, **run}]})


def at(uri: str, region: dict[str, int] | None = None, base: str | None = None) -> list[dict[str, Any]]:
    artifact: dict[str, Any] = {"uri": uri, **({"uriBaseId": base} if base else {})}
    physical: dict[str, Any] = {"artifactLocation": artifact, **({"region": region} if region else {})}
    return [{"physicalLocation": physical}]


def test_columns_levels_kinds_and_links(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.txt").write_text("😀x = 1\n")
    results = [
        {"ruleId": "R1", "level": "error", "message": {"text": "one"},
         "locations": at("a.txt", {"startLine": 1, "startColumn": 3, "endColumn": 4}, "SRC")},
        {"ruleId": "R2", "message": {"text": "two"}, "locations": at("src/a.txt", {"startLine": 1})},
        {"ruleId": "R3", "level": "none", "message": {"text": "three"}, "locations": at("src/a.txt")},
        {"ruleId": "R4", "kind": "pass", "message": {"text": "ok"}, "locations": at("src/a.txt")},
        {"ruleId": "R5", "message": {"text": "nowhere"}},
        {"ruleId": "R6", "message": {"text": "outside"}, "locations": at("file:///elsewhere/x")},
    ]
    # The base id is written after the results: read in a first pass all the same.
    text = log(results, columnKind="utf16CodeUnits",
               originalUriBaseIds={"SRC": {"uri": (tmp_path / "src").as_uri() + "/"}})
    got = read("sarif", tmp_path, text)
    assert [(f.rule, f.path, f.severity, f.span, f.file_level, f.url) for f in got] == [
        ("R1", "src/a.txt", Severity.ERROR, Span(1, 2, 1, 3), False, "https://example.com/R1"),
        ("R2", "src/a.txt", Severity.WARNING, Span(1, 1, 1, 1), False, None),
        ("R3", "src/a.txt", Severity.INFO, Span(1, 1, 1, 1), True, None),
    ]


def test_fixes_become_edits(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("import os\nx = 1\n")
    fix = {"description": {"text": "Remove it"}, "artifactChanges": [{
        "artifactLocation": {"uri": "a.py"},
        "replacements": [{"deletedRegion": {"startLine": 1, "startColumn": 1, "endLine": 2,
                                            "endColumn": 1}},
                         {"deletedRegion": {"startLine": 2, "startColumn": 1, "endColumn": 2},
                          "insertedContent": {"text": "y"}}]}]}
    [finding] = read("sarif", tmp_path, log([{"ruleId": "F", "message": {"text": "m"}, "fixes": [fix],
                                              "locations": at("a.py", {"startLine": 1})}]))
    assert finding.fix is not None and finding.fix.description == "Remove it"
    assert finding.fix.applicability == "safe"  # as the declaration says
    assert [(e.span, e.new_text) for e in finding.fix.edits] == [(Span(1, 1, 2, 1), ""),
                                                                 (Span(2, 1, 2, 2), "y")]


@pytest.mark.parametrize("out", ["", "not json", "[1, 2]", '{"runs": [{"results": [3]}]}', '{"runs": '])
def test_garbage_fails(tmp_path: Path, out: str) -> None:
    with pytest.raises(GarbageOutput):
        read("sarif", tmp_path, out)
