"""Interruption of the apply flow (the apply label or command: one commit on the PR head,
pushed with a lease): a real SIGTERM or SIGINT, through the bot's own handlers, before or after
the k-th of its git commands, k drawn from a fixed seed over the whole run. Whatever it hit,
the CI checkout is as it was, no private index or process is left, the remote holds the head
or the head and one commit on it, and the flow run again ends with exactly one commit pushed:
a push that had landed is not made twice."""

from __future__ import annotations

import os
import random
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot import cancel, git
from bot.apply.flow import ApplyOutcome, ApplyRequest, run
from bot.apply.plan import StagedRewrite
from tests.apply.conftest import Scenario
from tests.apply.conftest import git as sh
from tests.faults.harness import strays

STR_TO_REPR = StagedRewrite("str($A)", "repr($A)", None, "alice")
SEED = 21
_DRAW = random.Random(SEED)
POINTS = [(round(_DRAW.random(), 3), signum, when)
          for signum, when in [(signal.SIGTERM, "before"), (signal.SIGINT, "after")] * 4]
# And the last command, the push, which the draws above missed: just before it, and once it
# has landed (the run that follows must not push a second commit).
POINTS += [(0.999, signal.SIGINT, "before"), (0.999, signal.SIGTERM, "after")]


def apply(pr: Scenario) -> ApplyOutcome:
    return run(ApplyRequest(pr.checkout, "origin", "feat", pr.result, (STR_TO_REPR,), "apply",
                            "alice"))


def state(checkout: Path) -> tuple[str, str, str]:
    return (sh(checkout, "status", "--porcelain=v1", "--ignored", "--untracked-files=all"),
            sh(checkout, "ls-files", "--stage"), sh(checkout, "rev-parse", "HEAD"))


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr("tempfile.tempdir", None)  # gettempdir() reads TMPDIR again
    yield tmp


def git_calls(pr_template: Scenario, where: Path) -> int:
    """How many git commands a whole run makes (on a copy of the scenario)."""
    copy = pr_template.copy(where)
    real, seen = git.git, []

    def counting(*args: Any, **kwargs: Any) -> Any:
        seen.append(args)
        return real(*args, **kwargs)

    git.git = counting  # type: ignore[assignment]
    try:
        assert apply(copy).status == "pushed"
    finally:
        git.git = real  # type: ignore[assignment]
    return len(seen)


@pytest.mark.parametrize(("at", "signum", "when"), POINTS,
                         ids=[f"{s.name}-{w}-{a}" for a, s, w in POINTS])
def test_a_signal_at_any_git_command_of_an_apply(
        pr_template: Scenario, pr: Scenario, tmp_path: Path, private_tmp: Path,
        monkeypatch: pytest.MonkeyPatch, at: float, signum: signal.Signals, when: str) -> None:
    total = git_calls(pr_template, tmp_path / "count")
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
    monkeypatch.setattr(git, "git", signalled)
    expected = KeyboardInterrupt if signum == signal.SIGINT else cancel.Terminated
    with pytest.raises(expected), cancel.cancellable():
        apply(pr)
    monkeypatch.setattr(git, "git", real)
    hit = f"{when} git command {k + 1} of {total}: {seen[k][1:3] if k < len(seen) else None}"
    assert state(pr.checkout) == before, hit
    assert sorted(p.name for p in private_tmp.iterdir()) == [], hit
    assert strays(pr.origin.parent) == [], hit
    remote = pr.remote_head("feat")
    assert remote == pr.head or sh(pr.origin, "rev-parse", f"{remote}^") == pr.head, hit

    again = apply(pr)
    # After a push that landed: the same commit again (made within the same second) is on the
    # remote already, which is what was asked; a commit of a later second is refused by the
    # lease, the branch having moved. Never a failure, never a second commit.
    assert again.status in (("pushed", "moved") if remote != pr.head else ("pushed",)), (
        hit, again.message)
    final = pr.remote_head("feat")
    assert sh(pr.origin, "rev-parse", f"{final}^") == pr.head, hit  # one commit, not two
    assert sh(pr.origin, "cat-file", "blob", f"{final}:util.py").endswith("return repr(v)"), hit
    assert state(pr.checkout) == before, hit
    assert sorted(p.name for p in private_tmp.iterdir()) == [], hit


def test_run_again_after_its_push_landed_the_same_commit_is_pushed_not_failed(
        pr: Scenario, monkeypatch: pytest.MonkeyPatch) -> None:
    """What the random points above found once: a run cut short after its push, run again
    within the same second, makes the very commit the branch holds; git reports it "up to
    date", which was read as a failed push ("Nothing was pushed")."""
    for name in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):  # the same second, every time
        monkeypatch.setenv(name, "2026-01-01T00:00:00Z")
    first = apply(pr)
    assert first.status == "pushed", first.message
    again = apply(pr)
    assert (again.status, again.commit) == ("pushed", first.commit), again.message
    assert sh(pr.origin, "rev-parse", "refs/heads/feat^") == pr.head
