"""Files reach a linter in batches bounded by the command line's length, not by a count: a
change of hundreds of files costs one start-up of each tool per revision (one in all for ESLint,
which lints both revisions in one run). Counted on real ruff and ESLint, started through a
wrapper on PATH that logs each start."""

from __future__ import annotations

import itertools
import json
import os
import stat
from pathlib import Path

import pytest

from bot.cli import main
from bot.linters import base
from bot.linters.base import Unit, argv_cost, file_units
from bot.revisions.trees import DiskView
from tests.conftest import GitRepo, require_tool

FILES = 500


def _wrappers(tmp_path: Path, log: Path, tools: list[str]) -> Path:
    """A folder of scripts named like `tools` that log their arguments, then run the real one."""
    folder = tmp_path / "wrappers"
    folder.mkdir()
    for name in tools:
        real = require_tool(name)
        script = folder / name
        script.write_text(f'#!/bin/sh\nprintf "%s %s\\n" "{name}" "$*" >> "{log}"\n'
                          f'exec "{real}" "$@"\n')
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return folder


def _starts(log: Path, name: str) -> list[str]:
    lines = log.read_text().splitlines() if log.exists() else []
    return [ln for ln in lines if ln.startswith(f"{name} ") and "--version" not in ln]


def test_hundreds_of_files_cost_one_start_per_revision(
        repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "starts.log"
    folder = _wrappers(tmp_path, log, ["ruff", "eslint"])
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    repo.commit({"ruff.toml": '[lint]\nselect = ["F"]\n',
                 "eslint.config.mjs": 'export default [{ rules: { "no-unused-vars": "error" } }];\n',
                 **{f"py/module_{i:04d}.py": f"def f_{i}(x):\n    return x\n" for i in range(FILES)},
                 **{f"js/module_{i:04d}.js": f"export const v{i} = {i};\n" for i in range(FILES)}},
                "base")
    repo.branch("feature")
    repo.commit({**{f"py/module_{i:04d}.py": f"def f_{i}(x):\n    unused_{i} = 1\n    return x\n"
                    for i in range(FILES)},
                 **{f"js/module_{i:04d}.js": f"export const v{i} = {i};\nconst unused{i} = 1;\n"
                    for i in range(FILES)}})
    assert main(["review", "--repo", str(repo.path), "--base", "main", "--format", "json",
                 "--no-cache"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert {t["name"]: t["status"] for t in report["tools"]} == {"eslint": "ok", "ruff": "ok"}
    assert report["summary"]["introduced"] == 2 * FILES
    # ESLint 10 takes both revisions in one run; ruff runs once per revision.
    assert len(_starts(log, "eslint")) == 1
    assert len(_starts(log, "ruff")) == 2


def test_batches_follow_the_byte_budget(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    paths = [f"src/{'x' * (i % 7)}file_{i}.py" for i in range(300)]
    monkeypatch.setattr(base, "argv_budget", lambda: 2_000)
    units = file_units(DiskView(tmp_path), paths)
    assert [p for u in units for p in u.paths] == paths  # each once, in order
    assert len(units) > 1
    for unit in units:
        assert sum(argv_cost(p) for p in unit.paths) <= 2_000
    # Each batch is as full as the budget allows: the next path would not have fit.
    for unit, after in itertools.pairwise(units):
        assert sum(argv_cost(p) for p in unit.paths) + argv_cost(after.paths[0]) > 2_000


def test_a_path_longer_than_the_budget_goes_alone(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    monkeypatch.setattr(base, "argv_budget", lambda: 100)
    long = "d/" + "n" * 200 + ".py"
    units = file_units(DiskView(tmp_path), ["a.py", long, "b.py"])
    assert units == [Unit(".", ("a.py",)), Unit(".", (long,)), Unit(".", ("b.py",))]


def test_the_budget_leaves_room_for_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    roomy = base.argv_budget()
    monkeypatch.setenv("REVIEWBOT_TEST_PADDING", "x" * 100_000)
    assert base.argv_budget() <= roomy - 100_000
    limit = os.sysconf("SC_ARG_MAX")
    assert 0 < base.argv_budget() < limit // 2
