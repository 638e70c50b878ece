"""`reviewbot ast-grep` and `reviewbot ast-edit` end to end, in a temporary git repository."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.structural.pattern import STRICTNESS

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


@pytest.mark.parametrize(("where", "says"), [
    ("sub", "--stage sub: is a folder; name a file"),
    ("missing/plan.json", "--stage missing/plan.json: the folder missing does not exist"),
])
def test_a_plan_that_cannot_be_written_exits_2_before_any_work(
        tree: Path, capsys: pytest.CaptureFixture[str], where: str, says: str) -> None:
    (tree / "sub").mkdir()
    assert main(["ast-edit", "-l", "python", "-p", "print($$$A)", "-r", "log($$$A)",
                 "--stage", where]) == 2
    out, err = capsys.readouterr()
    assert err.strip() == f"reviewbot: {says}" and out == ""  # no diff of a plan never written
    assert (tree / "a.py").read_text() == PY


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


def test_a_pattern_of_several_statements_exits_2(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for verb in (["ast-grep"], ["ast-edit", "-r", "x = 1", "--stage", "p.json"]):
        assert main([*verb, "-l", "python", "-p", "import os\nimport sys"]) == 2
        err = capsys.readouterr().err
        assert "2 nodes side by side" in err and "one root node" in err and "Traceback" not in err
    assert not (tree / "p.json").exists()


def test_bad_strictness_exits_2(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["ast-grep", "-l", "python", "-p", "f($A)", "--strictness", "loose"])
    assert info.value.code == 2
    assert "invalid choice: 'loose'" in capsys.readouterr().err


CLI_SOURCES = {
    "a.ts": "let a = 1; const b = 1; foo(a,); foo(/* c */ a); foo(b);\n"
            "import A from \"lib\"; async function f() { return 1; }\nx = foo(a);\n",
    "b.py": "f(a)\nf(a,)\nf(  # c\n  a)\ndef g(x): return 1\nasync def h(y): return 2\n",
}
CLI_PATTERNS = [("ts", "let $A = 1"), ("ts", "foo(a)"), ("ts", "import $A from 'lib'"),
                ("ts", "function $F() { return 1 }"), ("ts", "$A = $B"),
                ("python", "f(a)"), ("python", "def $F($X): return 1")]


def _ast_grep_cli() -> str:
    found = shutil.which("ast-grep", path=str(Path(sys.executable).parent)) or shutil.which("ast-grep")
    if found is None:
        pytest.skip("the ast-grep CLI (dev dependency ast-grep-cli) is not installed")
    return found


@pytest.mark.parametrize("strictness", STRICTNESS)
def test_strictness_agrees_with_the_ast_grep_cli(repo: Path, strictness: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """`--strictness` on our CLI against `ast-grep run --strictness` on the same files."""
    cli = _ast_grep_cli()
    for name, text in CLI_SOURCES.items():
        (repo / name).write_text(text)
    for lang, pattern in CLI_PATTERNS:
        res = subprocess.run([cli, "run", "--lang", lang, "--strictness", strictness, "--pattern",
                              pattern, "--json=compact", "."], cwd=repo, capture_output=True,
                             text=True, check=False)
        assert res.returncode in (0, 1), res.stderr  # 1: no match, as grep
        theirs = sorted((m["file"], m["range"]["start"]["line"] + 1, m["text"])
                        for m in json.loads(res.stdout))
        assert main(["ast-grep", "--lang", "python" if lang == "python" else "typescript",
                     "--strictness", strictness, "--pattern", pattern, "--json"]) == 0
        ours = sorted((m["path"], m["range"]["start"]["line"], m["text"])
                      for m in json.loads(capsys.readouterr().out))
        if strictness in ("cst", "ast"):
            assert ours == theirs, pattern
        else:  # we skip comments wherever they are (test_deliberate.py, difference 7)
            assert set(theirs) <= set(ours), pattern
            assert all("#" in t or "/*" in t for _, _, t in set(ours) - set(theirs)), pattern


def test_ast_edit_takes_a_strictness(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tree / "c.py").write_text("f(a, b)\nf(x, y)\n")
    assert main(["ast-edit", "-l", "python", "-p", "f(a, b)", "-r", "g()", "--strictness",
                 "signature", "--stage", "plan.json", "c.py"]) == 0
    assert "2 edit(s) in 1 file(s)" in capsys.readouterr().out


# -- a plan is input: hostile and malformed plans are refused before anything is written -------

VICTIM = "precious = 1\n"


@pytest.fixture
def staged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, dict[str, Any]]:
    """(repository, victim outside it, a genuine staged plan of a.py) with the repository as cwd."""
    root = tmp_path / "work"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.chdir(root)
    (root / "a.py").write_text(PY)
    victim = tmp_path / "victim.txt"
    victim.write_text(VICTIM)
    assert main(["ast-edit", "-l", "python", "-p", "print($$$A)", "-r", "log($$$A)",
                 "--stage", "plan.json", "a.py"]) == 0
    return root, victim, json.loads((root / "plan.json").read_text())


def aimed_at(path: str, content: str = VICTIM) -> dict[str, Any]:
    """A plan entry whose hashes match `content`, so only the path check can stop it."""
    before, after = content.encode(), content.replace("1", "666").encode()
    index = content.index("1")
    return {"path": path, "sha256": hashlib.sha256(before).hexdigest(), "size": len(before),
            "sha256_after": hashlib.sha256(after).hexdigest(), "eol": "lf",
            "edits": [{"start": index, "end": index + 1,
                       "range": {"start": {"line": 1, "column": index + 1},
                                 "end": {"line": 1, "column": index + 2}},
                       "old": "1", "new": "666", "bindings": {}}]}


def apply_hostile(root: Path, plan: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> str:
    (root / "plan.json").write_text(json.dumps(plan))
    capsys.readouterr()
    assert main(["ast-edit", "--apply", "plan.json"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert (root / "a.py").read_text() == PY  # the genuine entry is not written either
    return err


@pytest.mark.parametrize("where", ["dotdot", "nested-dotdot", "absolute"])
def test_apply_refuses_a_path_outside_the_root(staged: tuple[Path, Path, dict[str, Any]],
                                               capsys: pytest.CaptureFixture[str],
                                               where: str) -> None:
    root, victim, plan = staged
    path = {"dotdot": "../victim.txt", "nested-dotdot": "sub/../../victim.txt",
            "absolute": str(victim)}[where]
    plan["files"].append(aimed_at(path))
    err = apply_hostile(root, plan, capsys)
    assert path in err and "files[1].path" in err and "nothing written" in err
    assert ("absolute" if where == "absolute" else "'..'") in err
    assert victim.read_text() == VICTIM


@pytest.mark.parametrize("link", ["folder", "file"])
def test_apply_refuses_a_path_through_a_symlink_that_leaves_the_root(
        staged: tuple[Path, Path, dict[str, Any]], capsys: pytest.CaptureFixture[str],
        link: str) -> None:
    root, victim, plan = staged
    if link == "folder":
        (root / "out").symlink_to(victim.parent, target_is_directory=True)
        path = "out/victim.txt"
    else:
        (root / "v.txt").symlink_to(victim)
        path = "v.txt"
    plan["files"].append(aimed_at(path))
    err = apply_hostile(root, plan, capsys)
    assert f"{path}: " in err and "outside" in err
    assert victim.read_text() == VICTIM


def test_apply_refuses_a_root_that_is_not_the_current_directory(
        staged: tuple[Path, Path, dict[str, Any]], capsys: pytest.CaptureFixture[str]) -> None:
    root, victim, plan = staged
    plan["root"] = str(victim.parent)
    plan["files"] = [aimed_at("victim.txt")]
    err = apply_hostile(root, plan, capsys)
    assert "root" in err and str(victim.parent) in err
    assert victim.read_text() == VICTIM


@pytest.mark.parametrize(("path", "why"), [
    ("./a.py", "'.'"), ("sub//a.py", "empty"), ("a.py/", "empty"), ("", "empty"),
    ("sub\\..\\..\\victim.txt", "backslash"), ("a\x00.py", "NUL"), (".git/config", ".git"),
])
def test_apply_refuses_an_unclean_path(staged: tuple[Path, Path, dict[str, Any]],
                                       capsys: pytest.CaptureFixture[str],
                                       path: str, why: str) -> None:
    root, victim, plan = staged
    plan["files"].append(aimed_at(path))
    err = apply_hostile(root, plan, capsys)
    assert "files[1].path" in err and why in err
    assert victim.read_text() == VICTIM


def test_apply_refuses_the_same_file_twice(staged: tuple[Path, Path, dict[str, Any]],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    root, _, plan = staged
    plan["files"].append(plan["files"][0])
    assert "files[1].path: 'a.py' is already planned" in apply_hostile(root, plan, capsys)


def _drop(plan: dict[str, Any], key: str) -> None:
    del plan[key]


@pytest.mark.parametrize(("tamper", "expected"), [
    (lambda p: _drop(p, "files"), "plan.json: files: missing"),
    (lambda p: p.update(files={}), "plan.json: files: expected a list"),
    (lambda p: p["files"][0]["edits"][0].update(start="7"),
     "plan.json: files[0].edits[0].start: expected an integer"),
    (lambda p: p["files"][0]["edits"][0].update(start=True),
     "plan.json: files[0].edits[0].start: expected an integer"),
    (lambda p: p["files"][0]["edits"][0].update(end=10**6),
     "plan.json: files[0].edits[0].end: 1000000 is past the end of the file"),
    (lambda p: p["files"][0]["edits"][0].update(start=p["files"][0]["edits"][0]["end"] + 1),
     "plan.json: files[0].edits[0]: start"),
    (lambda p: p["files"][0]["edits"].append(dict(p["files"][0]["edits"][0])),
     "plan.json: files[0].edits[1]: overlaps"),
    (lambda p: p["files"][0].update(sha256="zz"),
     "plan.json: files[0].sha256: expected 64 hexadecimal digits"),
    (lambda p: p["files"][0].update(size=-1),
     "plan.json: files[0].size: expected a non-negative integer"),
    (lambda p: p["files"][0].update(eol="cr"), "plan.json: files[0].eol: expected 'lf' or 'crlf'"),
    (lambda p: p["files"][0]["edits"][0].update(new=3),
     "plan.json: files[0].edits[0].new: expected a string"),
    (lambda p: p["files"][0]["edits"][0]["range"]["start"].update(line=0),
     "plan.json: files[0].edits[0].range.start.line: expected a positive integer"),
    (lambda p: p["files"][0]["edits"][0].update(bindings={"A": 1}),
     "plan.json: files[0].edits[0].bindings.A: expected a string"),
    (lambda p: p.update(root="relative/dir"), "plan.json: root: expected an absolute path"),
    (lambda p: p.update(version="1"), "plan.json: version '1' is not supported"),
])
def test_a_malformed_plan_names_the_field(staged: tuple[Path, Path, dict[str, Any]],
                                          capsys: pytest.CaptureFixture[str],
                                          tamper: Callable[[dict[str, Any]], None],
                                          expected: str) -> None:
    root, _, plan = staged
    tamper(plan)
    assert expected in apply_hostile(root, plan, capsys)


@pytest.mark.parametrize("text", ["[1, 2]", "{", "[" * 100_000, '{"version": 1, "files": null}'])
def test_a_plan_that_is_not_a_plan_exits_2(staged: tuple[Path, Path, dict[str, Any]],
                                           capsys: pytest.CaptureFixture[str], text: str) -> None:
    root, _, _ = staged
    (root / "plan.json").write_text(text)
    capsys.readouterr()
    assert main(["ast-edit", "--apply", "plan.json"]) == 2
    err = capsys.readouterr().err
    assert "plan.json" in err and "Traceback" not in err
    assert (root / "a.py").read_text() == PY


def test_a_misspelt_language_gets_a_suggestion(tree: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ast-grep", "--lang", "pyhton", "-p", "print($A)"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("reviewbot: unknown language 'pyhton' (did you mean 'python'?); supported: ")
    assert err.count("\n") == 1
