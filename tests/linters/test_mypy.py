"""mypy for real on temporary projects."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from bot import proc
from bot.analyzer import Target
from bot.linters import mypy
from bot.linters.base import Unit
from bot.linters.runner import LinterAnalyzer
from bot.model import Severity, Span
from tests.linters.conftest import lint, resolve, write

A = """
def greet(name: str) -> str:
    return name


x: int = "s"
"""

B = """
from a import greet

greet(1)
"""

OVERLOAD = """
from typing import overload


@overload
def h(x: int) -> int: ...
@overload
def h(x: str) -> str: ...
def h(x: object) -> object:
    return x


h(1.5)
reveal_type(h(1))
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write(tmp_path, {"pyproject.toml": '[tool.mypy]\nfiles = ["."]\n', "a.py": A, "b.py": B})


def test_detection(tmp_path: Path) -> None:
    assert not mypy.detect(write(tmp_path, {"pyproject.toml": "[tool.ruff]\n"}))
    assert mypy.detect(write(tmp_path, {"mypy.ini": "[mypy]\nstrict = True\n"}))
    assert not mypy.configured_targets(tmp_path)


def test_json_findings(project: Path) -> None:
    outcome = lint(mypy.SPEC, project, ["a.py"])
    assert outcome.status == "ok", outcome.message
    [assignment] = [f for f in outcome.findings if f.rule == "assignment"]
    assert (assignment.path, assignment.span) == ("a.py", Span(5, 10, 5, 13))
    assert assignment.severity == Severity.ERROR
    assert assignment.url and assignment.url.endswith("#code-assignment")


def test_project_scope_sees_an_untouched_importer(project: Path) -> None:
    outcome = lint(mypy.SPEC, project, ["a.py"])
    assert ("b.py", "arg-type", 3) in {(f.path, f.rule, f.span.line) for f in outcome.findings}
    assert outcome.extra_paths == frozenset({"b.py"})


def test_notes_fold_into_their_error_and_reveal_type_stays_a_note(tmp_path: Path) -> None:
    write(tmp_path, {"mypy.ini": "[mypy]\n", "o.py": OVERLOAD})
    outcome = lint(mypy.SPEC, tmp_path, ["o.py"])
    [overload] = [f for f in outcome.findings if f.rule == "call-overload"]
    assert "Possible overload variants:" in overload.message and "def h(x: int) -> int" in overload.message
    [note] = [f for f in outcome.findings if f.severity == Severity.INFO]
    assert 'Revealed type is "builtins.int"' in note.message or "Revealed type" in note.message
    assert len(outcome.findings) == 2


def test_text_format_parses_the_same_as_json(tmp_path: Path) -> None:
    """The pre-1.11 path, run on the real text output of today's mypy."""
    write(tmp_path, {"mypy.ini": "[mypy]\n", "o.py": OVERLOAD, "a.py": A})
    resolution = resolve(mypy.SPEC, tmp_path)
    target = Target(tmp_path, "HEAD", ("o.py", "a.py"), "head")
    as_json = LinterAnalyzer(mypy.SPEC).collect(target, resolution)
    legacy = dataclasses.replace(mypy.SPEC, for_version=None, command=mypy.command_text,
                                 parse=mypy.parse_text)
    as_text = LinterAnalyzer(legacy).collect(target, resolution)
    assert as_text.status == "ok", as_text.message
    assert sorted((f.path, f.rule, f.span, f.message) for f in as_text.findings) == \
        sorted((f.path, f.rule, f.span, f.message) for f in as_json.findings)
    assert mypy.for_version(mypy.SPEC, "1.10.1").parse is mypy.parse_text
    assert mypy.for_version(mypy.SPEC, "2.4.1").parse is mypy.parse


def test_syntax_error_exit_2_is_findings(tmp_path: Path) -> None:
    write(tmp_path, {"mypy.ini": "[mypy]\n", "s.py": "def f(:\n"})
    outcome = lint(mypy.SPEC, tmp_path, ["s.py"])
    assert outcome.status == "ok"
    assert {f.rule for f in outcome.findings} == {"syntax"}


def test_usage_error_is_a_failure(tmp_path: Path) -> None:
    write(tmp_path, {"mypy.ini": "[mypy]\n"})
    outcome = lint(mypy.SPEC, tmp_path, ["missing.py"])
    assert outcome.status == "failed"
    assert "missing.py" in outcome.failed_paths


def test_garbage_is_refused(tmp_path: Path) -> None:
    result = proc.Result(("mypy",), 2, b"Traceback (most recent call last):\n", b"")
    with pytest.raises(mypy.GarbageOutput):
        list(mypy.parse(result, Unit(".", ("a.py",)), Target(tmp_path, "x", (), "head")))


def test_the_repositorys_virtualenv_is_where_imports_resolve(tmp_path: Path) -> None:
    """A library installed only in the repository's `.venv` (not in mypy's own environment)
    is checked against its types, not reported as a missing import."""
    import subprocess
    import sys

    root = write(tmp_path, {"pyproject.toml": "[tool.mypy]\nstrict = true\n",
                            "app.py": "from onlyhere import answer\n\nx: str = answer()\n"})
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / ".venv")], check=True)
    site = next((root / ".venv" / "lib").glob("python3*/site-packages"))
    (site / "onlyhere").mkdir()
    (site / "onlyhere" / "__init__.py").write_text("def answer() -> int:\n    return 42\n")
    (site / "onlyhere" / "py.typed").write_text("")
    outcome = lint(mypy.SPEC, root, ["app.py"])
    assert outcome.status == "ok", outcome.message
    assert [(f.rule, f.line) for f in outcome.findings] == [("assignment", 3)]
