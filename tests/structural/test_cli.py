"""`reviewbot ast-grep` and `reviewbot ast-edit` end to end, in a temporary git repository."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main

PY = "import os\n\n\ndef f(a):\n    print(a,\n          1)\n"
GO = "package p\n\nfunc f() error {\n\tif err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n"


@pytest.fixture
def tree(repo: Path) -> Path:
    (repo / "a.py").write_text(PY)
    (repo / "m.go").write_text(GO)
    (repo / "ignored.py").write_text("print(1, 2)\n")
    (repo / ".gitignore").write_text("ignored.py\n")
    return repo


def test_ast_grep_json(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ast-grep", "--lang", "python", "--pattern", "print($A, $$$R)", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out) == 1  # ignored.py is not searched
    m = out[0]
    assert m["path"] == "a.py" and m["text"] == "print(a,\n          1)"
    assert m["range"] == {"start": {"line": 5, "column": 5}, "end": {"line": 6, "column": 13}}
    assert m["bindings"]["A"]["text"] == "a" and m["bindings"]["R"]["items"] == ["1"]


def test_ast_grep_text_frames_and_inferred_language(tree: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ast-grep", "-p", "if $E != nil { return $E }"]) == 0
    out = capsys.readouterr().out
    assert "m.go:4:2" in out and "4 | \tif err != nil {" in out and "$E = err" in out
    assert "1 match(es) in 1 file(s)" in out


def test_explicit_paths(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ast-grep", "-p", "print($$$A)", "--json", "ignored.py"]) == 0
    assert [m["path"] for m in json.loads(capsys.readouterr().out)] == ["ignored.py"]


def test_bad_pattern_exits_2(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ast-grep", "-l", "python", "-p", "def f(:"]) == 2
    assert "not valid python" in capsys.readouterr().err


def test_stage_then_apply(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["ast-edit", "-l", "go", "-p", "if $E != nil { return $E }",
               "-r", 'if $E != nil {\n\treturn fmt.Errorf("f: %w", $E)\n}', "--stage", "plan.json"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "1 edit(s) in 1 file(s)" in out and "m.go:4:2-6:3" in out
    assert '+\t\treturn fmt.Errorf("f: %w", err)' in out
    assert (tree / "m.go").read_text() == GO  # staging writes nothing
    assert json.loads((tree / "plan.json").read_text())["count"] == 1
    assert main(["ast-edit", "--apply", "plan.json"]) == 0
    assert 'fmt.Errorf("f: %w", err)' in (tree / "m.go").read_text()


def test_apply_refuses_a_moved_file(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ast-edit", "-l", "python", "-p", "print($$$A)", "-r", "log($$$A)",
                 "--stage", "p.json", "a.py"]) == 0
    (tree / "a.py").write_text(PY + "\n")
    assert main(["ast-edit", "--apply", "p.json"]) == 1
    err = capsys.readouterr().err
    assert "a.py: changed since staging" in err and "nothing written" in err
    assert (tree / "a.py").read_text() == PY + "\n"


def test_unknown_metavariable_in_rewrite_exits_2(tree: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ast-edit", "-l", "python", "-p", "print($A)", "-r", "log($B)",
                 "--stage", "p.json"]) == 2
    assert "$B" in capsys.readouterr().err
    assert not (tree / "p.json").exists()


def test_ast_edit_usage_errors(tree: Path) -> None:
    assert main(["ast-edit", "-p", "print($A)"]) == 2
    assert main(["ast-edit", "--apply", "missing.json"]) == 2
