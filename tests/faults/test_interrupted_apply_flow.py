"""Interruption of the apply flow (the apply label or command: one commit on the PR head,
pushed with a lease): a real SIGTERM or SIGINT, through the bot's own handlers, before or after
the k-th of its git commands, k drawn from a fixed seed over the whole run (tests/faults/
applies.py). Whatever it hit, the CI checkout is as it was, no private index or process is
left, and the flow run again ends with exactly one commit pushed: a push that had landed is
not made twice."""

from __future__ import annotations

import random
import signal
from pathlib import Path

import pytest

from tests.apply.conftest import Scenario
from tests.apply.conftest import git as sh
from tests.faults.applies import apply, interrupted

SEED = 21
_DRAW = random.Random(SEED)
POINTS = [(round(_DRAW.random(), 3), signum, when)
          for signum, when in [(signal.SIGTERM, "before"), (signal.SIGINT, "after")] * 4]
# And the last command, the push, which the draws above missed: just before it, and once it
# has landed (the run that follows must not push a second commit).
POINTS += [(0.999, signal.SIGINT, "before"), (0.999, signal.SIGTERM, "after")]


@pytest.mark.parametrize(("at", "signum", "when"), POINTS,
                         ids=[f"{s.name}-{w}-{a}" for a, s, w in POINTS])
def test_a_signal_at_any_git_command_of_an_apply(pr_template: Scenario, tmp_path: Path,
                                                 at: float, signum: signal.Signals,
                                                 when: str) -> None:
    hit = interrupted(pr_template, tmp_path, at, signum, when)
    assert hit.stopped, hit
    # After a push that landed, the same commit again (made within the same second) is on the
    # remote already, which is what was asked; a commit of a later second is refused by the
    # lease, the branch having moved. Never a failure, never a second commit.
    assert hit.again in ("pushed", "moved"), hit
    assert (hit.lost, hit.duplicated, hit.left) == (0, 0, ()), hit


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
