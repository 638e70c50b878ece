"""The apply flow cut short for real: a SIGTERM or SIGINT sent to this process, through the
bot's own handlers, before or after the k-th git command of a run (the push included), then the
flow run again. Shared by tests/faults/test_interrupted_apply_flow.py and the fault matrix;
it runs in the main thread (signal handlers can only be set there)."""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot import git, proc
from bot.apply.flow import ApplyOutcome, ApplyRequest, run
from bot.apply.plan import StagedRewrite
from bot.safety import cancel
from tests.apply.conftest import Scenario
from tests.apply.conftest import git as sh
from tests.faults.harness import strays

STR_TO_REPR = StagedRewrite("str($A)", "repr($A)", None, "alice")


@dataclass(frozen=True)
class Hit:
    where: str  # the git command the signal came before or after
    stopped: bool  # the run raised the signal's exception (else it had finished)
    again: str  # the status of the run that followed
    lost: int  # 1 when no apply commit is on the remote in the end
    duplicated: int  # apply commits on the remote past the first
    left: tuple[str, ...]


def apply(pr: Scenario) -> ApplyOutcome:
    return run(ApplyRequest(pr.checkout, "origin", "feat", pr.result, (STR_TO_REPR,), "apply",
                            "alice"))


def state(checkout: Path) -> tuple[str, str, str]:
    """The CI checkout as a run must leave it: its status, its index's entries, its HEAD."""
    return (sh(checkout, "status", "--porcelain=v1", "--ignored", "--untracked-files=all"),
            sh(checkout, "ls-files", "--stage"), sh(checkout, "rev-parse", "HEAD"))


@contextlib.contextmanager
def private_tmp(tmp: Path) -> Iterator[Path]:
    """`tmp` as the temporary folder of this process for the block."""
    tmp.mkdir(exist_ok=True)
    saved = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = str(tmp)
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again
    try:
        yield tmp
    finally:
        if saved is None:
            del os.environ["TMPDIR"]
        else:
            os.environ["TMPDIR"] = saved
        tempfile.tempdir = None


@contextlib.contextmanager
def wrapped(replacement: Any) -> Iterator[None]:
    real = git.git
    git.git = replacement
    try:
        yield
    finally:
        git.git = real


def git_calls(template: Scenario, where: Path) -> int:
    """How many git commands a whole run makes (on a copy of the scenario)."""
    copy, real, seen = template.copy(where), git.git, []

    def counting(*args: Any, **kwargs: Any) -> Any:
        seen.append(args)
        return real(*args, **kwargs)

    with wrapped(counting):
        assert apply(copy).status == "pushed"
    return len(seen)


def interrupted(template: Scenario, where: Path, at: float, signum: signal.Signals,
                when: str) -> Hit:
    """Signal the run `when` ("before"/"after") its git command number int(at * total) + 1."""
    total = git_calls(template, where / "count")
    pr = template.copy(where / "pr")
    k = int(at * total)
    real, seen = git.git, []

    def signalled(*args: Any, **kwargs: Any) -> Any:
        seen.append(args)
        if len(seen) == k + 1 and when == "before":
            os.kill(os.getpid(), signum)  # handled at once, in this (the main) thread
        result = real(*args, **kwargs)
        if len(seen) == k + 1 and when == "after":
            os.kill(os.getpid(), signum)
        return result

    before = state(pr.checkout)
    stopped = False
    with private_tmp(where / "tmp") as tmp:
        try:
            with wrapped(signalled), cancel.cancellable():
                apply(pr)
        except (KeyboardInterrupt, cancel.Terminated):
            stopped = True
        finally:
            proc._cancelled_by = None  # this thread and the next runs may start processes
        left = _left(pr, tmp, before)
        again = apply(pr)
        left += tuple(f"after the re-run: {x}" for x in _left(pr, tmp, before))
    command = " ".join(str(a) for a in seen[k][1:3]) if k < len(seen) else "none"
    above = int(sh(pr.origin, "rev-list", "--count", f"{pr.head}..refs/heads/feat"))
    return Hit(f"{when} git {command} ({k + 1} of {total})", stopped, again.status,
               int(above == 0), max(0, above - 1), left)


def _left(pr: Scenario, tmp: Path, before: tuple[str, str, str]) -> tuple[str, ...]:
    left = [] if state(pr.checkout) == before else ["the checkout changed"]
    left += [f"temporary {p.name}" for p in tmp.iterdir()]
    left += [f"process {pid} in {cwd}" for pid, cwd in strays(pr.origin.parent)]
    return tuple(left)
