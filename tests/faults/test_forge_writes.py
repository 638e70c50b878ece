"""Forge faults, for every write a review publish makes on GitHub (the review, the summary
comment and its edit, a thread's resolution; the check run has its own tests in
tests/forges/test_github_faults.py): each fault kind
on the first such write, then clean re-runs. After them: 0 findings lost, 0 posted twice, one
summary, and a run that ends only in a published review or the forge's error (exit 3)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.errors import BotError, Exit
from bot.forges.github.change import GitHubChange
from tests.conftest import GitRepo
from tests.forges.builders import finding, result, verdict
from tests.forges.conftest import Sleeps
from tests.forges.fakegithub import FAULT_KINDS, FakeGitHub, Fault
from tests.forges.test_github_faults import assert_once, run, setup
from tests.forges.test_github_runs import by_fp

WRITES = {
    "review": r"POST /pulls/\d+/reviews$",
    "summary": r"POST /issues/\d+/comments$",
    "summary edit": r"PATCH /issues/comments/\d+$",
    "thread resolution": "graphql:mutation",
}
KINDS = [k for k in FAULT_KINDS if k != "502-late"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("write", WRITES)
def test_a_fault_on_a_write_loses_and_doubles_nothing(
        repo: GitRepo, fake: FakeGitHub, forge_for: Callable[[], GitHubChange], sleeps: Sleeps,
        write: str, kind: str) -> None:
    res = setup(repo, fake)
    target = WRITES[write]
    fault = Fault(target if target.startswith("graphql") else f"{target.split(' ')[0]} "
                  f"{target.split(' ', 1)[1]}", kind)
    fake.faults.append(fault)
    fixed = result(res.head, res.findings[1:], res.changes)  # fp-1 fixed: its thread resolved
    extra = verdict(finding("a.py", 10, message="v10 unused"), "fp-10")
    grown = result(res.head, [*fixed.findings, extra], res.changes)
    for step in (res, fixed, grown, grown):  # the last two: the clean re-runs
        try:
            outcome = run(forge_for(), step, repo, sleeps)
        except BotError as exc:
            assert exc.code == Exit.FORGE, exc.message
            continue
        # A 403 "not accessible" is a token that cannot write: the findings go to the summary
        # of the job instead, and the next run with the same token does the same.
        assert outcome.status in (("published", "read-only") if kind == "403" else ("published",))
    assert fault.hit >= 1, f"{write} was never written"
    assert_once(fake, grown)
    assert "fp-10" in by_fp(fake)
