"""The runner's scheduling: tools that can take hundreds of MB run together only where the
job's memory has room for them (bot.linters.memory), else one at a time."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

import pytest

from bot.analyzer import Target
from bot.cli import main
from bot.errors import BotError
from bot.linters import eslint, golangci, memory, mypy, ruff
from bot.linters.base import LinterSpec, Unit
from bot.linters.runner import LinterAnalyzer
from tests.conftest import GitRepo
from tests.linters.conftest import write


def _timed_spec(tmp_path: Path, name: str, heavy: bool) -> tuple[LinterSpec, Path]:
    """ruff as a tool called `name`, each run logging its start and end around a pause long
    enough for two runs to overlap when nothing keeps them apart."""
    log = tmp_path / f"{name}.log"

    def command(exe: str, unit: Unit, target: Target) -> list[str]:
        argv = ruff.SPEC.command(exe, unit, target)
        return ["sh", "-c", 'date +%s.%N >> "$0"; sleep 0.5; "$@"; s=$?; date +%s.%N >> "$0"; '
                'exit $s', str(log), *argv]

    return dataclasses.replace(ruff.SPEC, name=name, command=command, memory_heavy=heavy), log


def _interval(log: Path) -> tuple[float, float]:
    start, end = (float(x) for x in log.read_text().split())
    return start, end


GiB = 2**30


def _machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, available: int,
             cgroup_max: int | None = None) -> None:
    """A /proc and a cgroup v2 folder saying `available` bytes free on the machine and, with
    `cgroup_max`, the job's cgroup limited to that (200 MiB of it used)."""
    proc, cgroup = tmp_path / "proc", tmp_path / "cgroup"
    write(proc, {"meminfo": f"MemTotal: 25000000 kB\nMemAvailable: {available // 1024} kB\n",
                 "self/cgroup": "0::/job\n"})
    write(cgroup, {"cgroup.controllers": "memory\n",
                   "job/memory.max": f"{cgroup_max}\n" if cgroup_max else "max\n",
                   "job/memory.current": f"{200 * memory.MiB}\n",
                   "job/memory.stat": "anon 1\ninactive_file 0\n"})
    monkeypatch.setattr(memory, "PROC", proc)
    monkeypatch.setattr(memory, "CGROUP", cgroup)


@pytest.mark.parametrize(("heavy", "available", "cgroup_max", "variable", "together"), [
    (True, 8 * GiB, None, None, True),  # room for two runs and the reserve
    (True, 600 * memory.MiB, None, None, False),  # room for one
    (True, 8 * GiB, GiB, None, False),  # the machine has room, the job's cgroup has not
    (True, 8 * GiB, 4 * GiB, "auto", True),
    (True, 600 * memory.MiB, None, "2", True),  # the variable overrides the memory
    (True, 8 * GiB, None, "1", False),
    (False, 600 * memory.MiB, None, None, True),  # light tools never wait
])
def test_heavy_tools_run_together_only_where_memory_has_room(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, heavy: bool, available: int,
        cgroup_max: int | None, variable: str | None, together: bool) -> None:
    _machine(tmp_path, monkeypatch, available, cgroup_max)
    if variable is None:
        monkeypatch.delenv(memory.VARIABLE, raising=False)
    else:
        monkeypatch.setenv(memory.VARIABLE, variable)
    root = write(tmp_path / "repo", {"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401"]\n',
                                     "a.py": "import os\n"})
    runs = [_timed_spec(tmp_path, name, heavy) for name in ("one", "two")]
    outcomes = []

    def collect(spec: LinterSpec) -> None:
        analyzer = LinterAnalyzer(spec)
        outcomes.append(analyzer.collect(Target(root, "HEAD", ("a.py",), "head", timeout=60),
                                         analyzer.resolve(root)))

    threads = [threading.Thread(target=collect, args=(spec,)) for spec, _ in runs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [o.status for o in outcomes] == ["ok", "ok"]
    (a_start, a_end), (b_start, b_end) = sorted(_interval(log) for _, log in runs)
    overlap = a_end > b_start
    assert overlap is together, (a_start, a_end, b_start, b_end)


def test_a_setting_that_does_not_read_fails_the_heavy_tool_naming_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = write(tmp_path / "repo", {"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401"]\n',
                                     "a.py": "import os\n"})
    spec, log = _timed_spec(tmp_path, "one", heavy=True)
    analyzer = LinterAnalyzer(spec)
    monkeypatch.setenv(memory.VARIABLE, "lots")
    with pytest.raises(BotError, match="REVIEWBOT_HEAVY_TOOLS='lots': expected auto or a whole"):
        analyzer.resolve(root)  # where the pipeline asks first: the review stops (exit 2)
    monkeypatch.delenv(memory.VARIABLE)
    resolution = analyzer.resolve(root)
    monkeypatch.setenv(memory.VARIABLE, "lots")  # set between the two: the gate refuses too
    with pytest.raises(BotError, match="REVIEWBOT_HEAVY_TOOLS='lots': expected auto or a whole"):
        analyzer.collect(Target(root, "HEAD", ("a.py",), "head", timeout=60), resolution)
    assert not log.exists()  # the tool never started


def test_the_tools_that_take_hundreds_of_mb_say_so() -> None:
    assert all(s.memory_heavy for s in (eslint.SPEC, golangci.SPEC, mypy.SPEC))
    assert not ruff.SPEC.memory_heavy


def test_a_setting_that_does_not_read_stops_the_review_before_any_tool_runs(
        repo: GitRepo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> None:
    """Exit 2 and one line naming the variable, where a heavy tool (mypy here) would run."""
    repo.commit({"pyproject.toml": "[tool.mypy]\nstrict = true\n", "a.py": "x = 1\n"}, "base")
    repo.branch("feature")
    repo.commit({"a.py": "x: int = 'one'\n"})
    monkeypatch.setenv(memory.VARIABLE, "lots")
    status = main(["review", "--repo", str(repo.path), "--base", "main", "--only", "mypy",
                   "--no-cache"])
    err = capsys.readouterr().err
    assert status == 2, err
    assert err == ("reviewbot: REVIEWBOT_HEAVY_TOOLS='lots': expected auto or a whole number of "
                   "at least 1 (how many memory-heavy tools may run at once)\n")
    monkeypatch.setenv(memory.VARIABLE, "1")
    assert main(["review", "--repo", str(repo.path), "--base", "main", "--only", "mypy",
                 "--no-cache"]) == 1  # the type error, introduced
