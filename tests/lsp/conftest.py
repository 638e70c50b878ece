"""Language-server test helpers: every server a test starts is recorded, and the test fails
if any process of its process group is still alive afterwards (no orphans, ever)."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from bot import proc
from bot.lsp import session
from bot.model import ReviewResult
from bot.run.pipeline import ReviewOptions, run_review
from tests.conftest import GitRepo


def live_members(pgid: int) -> list[str]:
    """Non-zombie processes whose process group is `pgid` (read from /proc)."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        state, pgrp = fields[0], int(fields[2])
        if pgrp == pgid and state not in ("Z", "X"):
            members.append(f"{entry} {stat.split(' ', 2)[1]}")
    return members


@pytest.fixture(autouse=True)
def no_orphans(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    started: list[int] = []
    real_spawn = proc.spawn

    def recording_spawn(argv: Sequence[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        process = real_spawn(argv, **kwargs)
        started.append(process.pid)
        return process

    monkeypatch.setattr(proc, "spawn", recording_spawn)
    yield started
    # Reaping of reparented grandchildren by init is asynchronous: allow a moment.
    deadline = time.monotonic() + 5
    left = {pgid: live_members(pgid) for pgid in started}
    while any(left.values()) and time.monotonic() < deadline:
        time.sleep(0.1)
        left = {pgid: live_members(pgid) for pgid in started}
    orphans = {pgid: m for pgid, m in left.items() if m}
    assert not orphans, f"server processes left behind: {orphans}"


def review(repo: GitRepo, analyzers: Mapping[str, Any], base: str = "main",
           head: str = "HEAD", cache: Path | None = None) -> ReviewResult:
    return run_review(ReviewOptions(repo=repo.path, base=base, head=head,
                                    analyzers=dict(analyzers), cache_dir=cache))


def table(result: ReviewResult) -> list[tuple[str, str, int, str, str | None]]:
    """(rule, path, line, scope, where) of every verdict; fixed ones too."""
    rows = [(v.finding.rule, v.finding.path, v.finding.line, v.scope, v.where)
            for v in result.findings]
    rows += [(v.finding.rule, v.finding.path, v.finding.line, "fixed", None) for v in result.fixed]
    return sorted(rows)


def status(result: ReviewResult, tool: str) -> tuple[str, str]:
    run = next(t for t in result.tools if t.name == tool)
    return run.status, run.message


@pytest.fixture
def private_tmpdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty TMPDIR for the servers (and us): a test asserts it is empty afterwards."""
    folder = tmp_path / "tmpdir"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", None)  # Python caches the folder it chose
    return folder


def leftovers(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


Calls = dict[str, int]


@pytest.fixture
def sessions(monkeypatch: pytest.MonkeyPatch) -> Calls:
    """How many one-revision and two-revision sessions the review started."""
    calls: Calls = {"run": 0, "run_pair": 0}

    def counting(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return real(*args, **kwargs)
        return wrapper

    for name in calls:
        monkeypatch.setattr(session, name, counting(name, getattr(session, name)))
    return calls
