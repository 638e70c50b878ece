"""Interruption: SIGTERM or SIGINT reaching `ast-edit --apply` between any two of its writes
(a real signal, through the bot's own handlers, at each point in turn) leaves every file as it
was: a plan is applied all or nothing, and no temporary file is left beside them."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from bot.safety import cancel
from bot.structural import api
from bot.structural import plan as planmod

NAMES = ("a.py", "b.py", "sub/c.py", "sub/d.py")
SOURCE = b"print(1)\nprint(2)\n"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("after", range(len(NAMES) + 1))
def test_a_signal_between_writes_leaves_every_file_as_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signum: int, after: int) -> None:
    monkeypatch.chdir(tmp_path)
    for name in NAMES:
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(SOURCE)
    plan = api.stage("print($A)", "log($A)", lang="python", paths=list(NAMES))
    calls = []

    def replace(src: str, dst: str) -> None:
        if len(calls) == after:
            os.kill(os.getpid(), signum)  # handled at once, in this (the main) thread
        calls.append(dst)
        os.replace(src, dst)

    expected = KeyboardInterrupt if signum == signal.SIGINT else cancel.Terminated
    with pytest.raises(expected), cancel.cancellable():
        planmod.apply(plan, replace=replace)
        os.kill(os.getpid(), signum)  # after the last write: the plan was applied whole
    files = {n: (tmp_path / n).read_bytes() for n in NAMES}
    if after < len(NAMES):
        assert files == dict.fromkeys(NAMES, SOURCE), f"interrupted after {after} write(s)"
    else:
        assert set(files.values()) == {b"log(1)\nlog(2)\n"}
    assert sorted(p.name for p in tmp_path.rglob(".*.tmp")) == []
