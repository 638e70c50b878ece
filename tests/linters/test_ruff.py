"""ruff's adapter on real ruff output."""

from __future__ import annotations

from pathlib import Path

from bot.linters import ruff
from bot.model import Severity, Span
from tests.linters.conftest import lint, write


def test_positions_fixes_and_applicability(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401", "E711"]\n',
                     "pkg/a.py": 'import os\ns = "é😀"; x = None\nif x == None:\n    pass\n'})
    outcome = lint(ruff.SPEC, tmp_path, ["pkg/a.py"])
    assert outcome.status == "ok", outcome.message
    rules = {f.rule: f for f in outcome.findings}
    f401, e711 = rules["F401"], rules["E711"]
    assert (f401.path, f401.span, f401.severity) == ("pkg/a.py", Span(1, 8, 1, 10), Severity.ERROR)
    assert f401.fix is not None and f401.fix.applicability == "safe"
    assert [(e.span, e.new_text) for e in f401.fix.edits] == [(Span(1, 1, 2, 1), "")]
    assert e711.span == Span(3, 9, 3, 13)
    assert e711.fix is not None and e711.fix.applicability == "unsafe"
    assert f401.url == "https://docs.astral.sh/ruff/rules/unused-import"


def test_excluded_files_stay_excluded(tmp_path: Path) -> None:
    write(tmp_path, {"ruff.toml": 'extend-exclude = ["gen"]\n', "gen/x.py": "import os\n"})
    assert lint(ruff.SPEC, tmp_path, ["gen/x.py"]).findings == ()


def test_syntax_error_is_a_finding(tmp_path: Path) -> None:
    write(tmp_path, {"ruff.toml": "", "bad.py": "def f(:\n"})
    outcome = lint(ruff.SPEC, tmp_path, ["bad.py"])
    assert outcome.status == "ok"
    assert outcome.findings and all(f.severity == Severity.ERROR for f in outcome.findings)
