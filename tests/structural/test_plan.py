"""Staged plans: nothing is written at staging; apply is all-or-nothing and hash-checked."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bot.errors import BotError
from bot.structural import api, planpath
from bot.structural import plan as planmod

PY = "def f(a):\n    if a is not None:\n        a.close()\n    print(a)\n"


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode() if isinstance(text, str) else text)


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file() and ".git" not in p.parts}


def stage_three(repo: Path) -> planmod.Plan:
    write(repo, {"a.py": PY, "b.py": PY, "c.py": PY})
    return api.stage("print($A)", "log($A)", lang="python", cwd=repo)


def test_stage_writes_nothing_and_records_hashes(repo: Path) -> None:
    plan = stage_three(repo)
    assert snapshot(repo) == {n: PY.encode() for n in ("a.py", "b.py", "c.py")}
    assert plan.count == 3 and [f.path for f in plan.files] == ["a.py", "b.py", "c.py"]
    assert all(f.sha256 == planmod.sha256(PY.encode()) for f in plan.files)
    edit = plan.files[0].edits[0]
    assert (edit.old, edit.new, edit.bindings) == ("print(a)", "log(a)", {"A": "a"})
    assert (edit.span.line, edit.span.column, edit.span.end_column) == (4, 5, 13)


def test_plan_round_trips_through_json(repo: Path, tmp_path: Path) -> None:
    plan = stage_three(repo)
    path = tmp_path / "plan.json"
    planmod.save(plan, path)
    data = json.loads(path.read_text())
    assert data["count"] == 3 and data["files"][0]["edits"][0]["new"] == "log(a)"
    assert planmod.load(path) == plan


def test_apply_writes_every_file(repo: Path) -> None:
    plan = stage_three(repo)
    assert api.apply(plan) == ["a.py", "b.py", "c.py"]
    assert set(snapshot(repo).values()) == {PY.replace("print(a)", "log(a)").encode()}


@pytest.mark.parametrize("change", ["edited", "deleted", "crlf", "reformatted"])
def test_any_moved_file_rejects_the_whole_plan(repo: Path, change: str) -> None:
    plan = stage_three(repo)
    target = repo / "b.py"
    if change == "edited":
        target.write_text(PY + "x = 1\n")
    elif change == "deleted":
        target.unlink()
    elif change == "crlf":
        target.write_bytes(PY.replace("\n", "\r\n").encode())
    else:
        target.write_text(PY.replace("    ", "\t"))
    before = snapshot(repo)
    with pytest.raises(BotError) as err:
        api.apply(plan)
    assert err.value.code == 1
    assert "b.py" in err.value.message and "a.py" not in err.value.message
    assert {"deleted": "deleted", "crlf": "CRLF"}.get(change, "changed") in err.value.message
    assert snapshot(repo) == before


def test_failure_writing_the_second_of_three_restores_the_first(repo: Path) -> None:
    plan = stage_three(repo)
    calls: list[str] = []

    def flaky(src: str, dst: str) -> None:
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        os.replace(src, dst)

    with pytest.raises(BotError) as err:
        planmod.apply(plan, replace=flaky)
    assert "b.py" in err.value.message and "restored 1" in err.value.message
    assert snapshot(repo) == {n: PY.encode() for n in ("a.py", "b.py", "c.py")}
    assert not [p for p in repo.iterdir() if p.name.endswith(".reviewbot")]  # no temp left


def test_tab_indented_python_and_go_apply(repo: Path) -> None:
    write(repo, {
        "t.py": "class A:\n\tdef f(self):\n\t\tc = lambda: 456\n",
        "m.go": "package p\n\nfunc f() error {\n\tif err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n",
    })
    api.apply(api.stage("$B = lambda: $R", "def $B():\n\treturn $R", lang="python", cwd=repo))
    api.apply(api.stage("if $E != nil { return $E }",
                        'if $E != nil {\n\treturn fmt.Errorf("f: %w", $E)\n}', lang="go", cwd=repo))
    assert (repo / "t.py").read_text() == "class A:\n\tdef f(self):\n\t\tdef c():\n\t\t\treturn 456\n"
    assert (repo / "m.go").read_text() == (
        'package p\n\nfunc f() error {\n\tif err != nil {\n\t\treturn fmt.Errorf("f: %w", err)\n'
        "\t}\n\treturn nil\n}\n")


def test_crlf_file_stays_crlf_after_apply(repo: Path) -> None:
    write(repo, {"w.py": b"if x:\r\n    y = lambda: 1\r\n"})
    api.apply(api.stage("$B = lambda: $R", "def $B():\n    return $R", lang="python", cwd=repo))
    assert (repo / "w.py").read_bytes() == b"if x:\r\n    def y():\r\n        return 1\r\n"


def test_stage_refuses_a_rewrite_that_does_not_parse(repo: Path) -> None:
    write(repo, {"a.py": "f(1)\n"})
    with pytest.raises(BotError) as err:
        api.stage("f($A)", "f($A", lang="python", cwd=repo)
    assert err.value.code == 1 and "a.py" in err.value.message and "parse" in err.value.message


def test_altered_plan_is_rejected(repo: Path, tmp_path: Path) -> None:
    plan = stage_three(repo)
    path = tmp_path / "p.json"
    planmod.save(plan, path)
    data = json.loads(path.read_text())
    data["files"][0]["edits"][0]["new"] = "evil()"
    path.write_text(json.dumps(data))
    with pytest.raises(BotError, match="altered"):
        api.apply(planmod.load(path))
    assert snapshot(repo)["a.py"] == PY.encode()


def test_file_mode_is_kept(repo: Path) -> None:
    write(repo, {"x.py": "print(1)\n"})
    (repo / "x.py").chmod(0o755)
    api.apply(api.stage("print($A)", "log($A)", lang="python", cwd=repo))
    assert (repo / "x.py").stat().st_mode & 0o777 == 0o755


def test_apply_refuses_a_folder_swapped_for_a_link_out_of_the_root(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch
                                                                   ) -> None:
    root, outside = tmp_path / "work", tmp_path / "outside"
    root.mkdir()
    monkeypatch.chdir(root)
    write(root, {"sub/a.py": PY})
    plan = api.stage("print($A)", "log($A)", lang="python", cwd=root)
    (root / "sub").rename(outside)  # same bytes, now reached through a link
    (root / "sub").symlink_to(outside, target_is_directory=True)
    with pytest.raises(BotError) as err:
        api.apply(plan)
    assert err.value.code == 2 and "sub/a.py: resolves to" in err.value.message
    assert (outside / "a.py").read_text() == PY
    assert sorted(p.name for p in outside.iterdir()) == ["a.py"]  # no temporary file either


@pytest.mark.parametrize(("path", "problem"), [
    ("a.py", None), ("src/deep/a.py", None), ("..a.py", None), ("a..py", None),
    ("../a.py", "'..'"), ("/etc/passwd", "absolute"), ("a//b", "empty"), ("a/", "empty"),
    ("./a", "'.'"), ("a\\b", "backslash"), ("a\x00", "NUL"), (".GIT/hooks/x", ".git"),
    ("\ud800", "spell"),
])
def test_lexical_path_rules(path: str, problem: str | None) -> None:
    found = planpath.lexical_problem(path)
    assert found is None if problem is None else (found is not None and problem in found)
