"""ruff's adapter on real ruff output."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.linters import ruff, runner
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


def test_findings_past_the_run_cap_fail_their_files(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "MAX_PER_RUN", 5)
    write(tmp_path, {"ruff.toml": 'lint.select = ["F821"]\n', "a.py": "a, a, a\n",
                     "b.py": "b, b, b\n", "c.py": "c\n"})
    outcome = lint(ruff.SPEC, tmp_path, ["a.py", "b.py", "c.py"])
    assert outcome.status == "failed"
    assert outcome.failed_paths == {"b.py", "c.py"}
    assert "2 file(s) not checked: more than 5 findings in one run (b.py, c.py)" in outcome.message
    assert [f.path for f in outcome.findings] == ["a.py"] * 3


def test_the_version_of_a_wheel_installed_ruff_is_read_without_running_it(tmp_path: Path) -> None:
    """What `ruff --version` says, from the wheel's record of the very binary: a review then
    starts no process (nor reads the checkout's status) to ask it."""
    import shutil
    import subprocess

    from bot.linters.base import parse_version
    from tests.conftest import require_tool

    exe = require_tool("ruff")
    said = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=True)
    assert ruff.read_version(str(exe)) == parse_version(said.stdout)
    # The same binary elsewhere, or another file in the virtualenv's bin: no record names it.
    copy = tmp_path / "bin" / "ruff"
    copy.parent.mkdir()
    shutil.copy(exe, copy)
    assert ruff.read_version(str(copy)) is None
    assert ruff.read_version(str(exe.parent / "python")) is None
