"""The Python API the review and label flows call."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.model import Edit, Severity, Span
from bot.structural import api, scan


def test_findings_with_fixes(repo: Path) -> None:
    (repo / "a.py").write_text("x = f(f(1))\ny = f(2)\n")
    found = api.findings("f($A)", rule="no-f", message="f called with $A", lang="python",
                         rewrite="g($A)", severity=Severity.ERROR, cwd=repo)
    assert [(f.tool, f.rule, f.severity, f.message, f.span) for f in found] == [
        ("ast-grep", "no-f", Severity.ERROR, "f called with f(1)", Span(1, 5, 1, 12)),
        ("ast-grep", "no-f", Severity.ERROR, "f called with 1", Span(1, 7, 1, 11)),
        ("ast-grep", "no-f", Severity.ERROR, "f called with 2", Span(2, 5, 2, 9)),
    ]
    assert found[0].fix is not None and found[0].fix.edits == (
        Edit("a.py", Span(1, 5, 1, 12), "g(f(1))"),)
    assert found[1].fix is None  # nested in a match that is rewritten
    assert found[2].fix is not None and found[2].fix.edits[0].new_text == "g(2)"


def test_findings_without_rewrite_have_no_fix(repo: Path) -> None:
    (repo / "a.ts").write_text("foo(1)\n")
    found = api.findings("foo($A)", rule="r", message="m", cwd=repo)
    assert len(found) == 1 and found[0].fix is None and found[0].path == "a.ts"


def test_search_text_in_memory() -> None:
    ms = api.search_text("print($A)", "python", "print(1)\nprint(2)\n", path="x.py")
    assert [(m.path, m.span.line, m.captures["A"].text) for m in ms] == [
        ("x.py", 1, "1"), ("x.py", 2, "2")]


def test_search_many_files_uses_the_pool(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = scan._parallel
    calls: list[int] = []
    monkeypatch.setattr(scan, "_parallel", lambda *a: calls.append(1) or real(*a))
    body = "def f():\n    return dispose(a)\n" + "x = 1\n" * 6000
    for k in range(40):
        (repo / f"m{k}.py").write_text(body)
    (repo / "other.py").write_text("y = 2\n")
    matches = api.search("dispose($X)", lang="python", cwd=repo)
    assert len(matches) == 40
    assert [m.path for m in matches] == sorted(f"m{k}.py" for k in range(40))
    assert calls == [1]
