"""The runner's scheduling: tools that can take hundreds of MB run one at a time."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

import pytest

from bot.analyzer import Target
from bot.linters import eslint, golangci, mypy, ruff
from bot.linters.base import LinterSpec, Unit
from bot.linters.runner import LinterAnalyzer
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


@pytest.mark.parametrize("heavy", [True, False])
def test_heavy_tools_run_one_at_a_time(tmp_path: Path, heavy: bool) -> None:
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
    assert overlap is not heavy, (a_start, a_end, b_start, b_end)


def test_the_tools_that_take_hundreds_of_mb_say_so() -> None:
    assert all(s.memory_heavy for s in (eslint.SPEC, golangci.SPEC, mypy.SPEC))
    assert not ruff.SPEC.memory_heavy
