"""Fault injection: every finding ends up posted exactly once or in the summary, never twice."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.forges.github.change import GitHubChange
from bot.model import ReviewResult, Severity
from bot.publishing.gate import Gate
from bot.publishing.policy import Policy
from bot.publishing.sync import Synced
from tests.forges.builders import change, finding, result, texts, verdict
from tests.forges.conftest import Sleeps
from tests.forges.fakegithub import FakeGitHub, Fault
from tests.forges.test_github_runs import by_fp
from tests.publishing.shortcut import review

TEXT = "".join(f"v{n} = {n}\n" for n in range(1, 21))


def setup(repo, fake: FakeGitHub, count: int = 6) -> ReviewResult:  # type: ignore[no-untyped-def]
    repo.commit({"a.py": "\n"}, "base")
    head = repo.commit({"a.py": TEXT}, "head")
    fake.push(head, {"a.py": set(range(1, 21))})
    found = [verdict(finding("a.py", n, message=f"v{n} unused"), f"fp-{n}")
             for n in range(1, count + 1)]
    return result(head, found, [change("a.py", range(1, 21))])


def run(forge: GitHubChange, res: ReviewResult, repo, sleeps: Sleeps) -> Synced:  # type: ignore[no-untyped-def]
    return review(forge, res, texts(repo.path, res.head, ["a.py"]), Policy(),
                  Gate(0, "error"), settle=0, sleep=sleeps)


def assert_once(fake: FakeGitHub, res: ReviewResult) -> None:
    counts = {k: len(v) for k, v in by_fp(fake).items()}
    summary = fake.summaries()
    assert len(summary) == 1
    for v in res.findings:
        assert counts.get(v.fingerprint, 0) <= 1, v.fingerprint
        assert counts.get(v.fingerprint) == 1 or v.finding.message in summary[0]["body"]


@pytest.mark.parametrize("fault", [
    Fault(r"POST /pulls/\d+/reviews$", "502-after"),  # it took effect: nothing re-posted
    Fault(r"POST /pulls/\d+/reviews$", "502"),  # it did not: posted again, in smaller reviews
    Fault(r"POST /pulls/\d+/reviews$", "timeout-after"),
    Fault(r"POST /pulls/\d+/reviews$", "timeout"),
    Fault(r"POST /pulls/\d+/reviews$", "secondary"),
    Fault(r"POST /issues/\d+/comments$", "502-after"),  # the summary, created by the 502
    Fault(r"POST /issues/\d+/comments$", "secondary"),
    Fault(r"GET /pulls/\d+/comments$", "502", times=2),
    Fault("graphql:query", "timeout"),
])
def test_single_fault(repo, fake: FakeGitHub, forge_for: Callable[[], GitHubChange],  # type: ignore[no-untyped-def]
                      sleeps: Sleeps, fault: Fault) -> None:
    res = setup(repo, fake)
    fake.faults.append(fault)
    run(forge_for(), res, repo, sleeps)
    assert_once(fake, res)
    extra = verdict(finding("a.py", 10, message="v10 unused"), "fp-10")
    res2 = result(res.head, [*res.findings, extra], res.changes)
    outcome = run(forge_for(), res2, repo, sleeps)
    assert outcome.status == "published"
    assert fault.hit >= 1
    assert_once(fake, res2)
    assert "fp-10" in by_fp(fake)
    if fault.kind == "secondary":
        assert 7.0 in sleeps  # retry-after honoured


def test_502_that_did_not_take_effect_splits_the_review(  # type: ignore[no-untyped-def]
        repo, fake: FakeGitHub, forge_for: Callable[[], GitHubChange], sleeps: Sleeps) -> None:
    res = setup(repo, fake, count=8)
    fake.faults.append(Fault(r"POST /pulls/\d+/reviews$", "502"))
    run(forge_for(), res, repo, sleeps)
    assert_once(fake, res)
    assert len(fake.s.reviews) == 2  # 8 refused once, then 4 + 4


def test_422_on_one_line_demotes_only_that_comment(  # type: ignore[no-untyped-def]
        repo, fake: FakeGitHub, forge_for: Callable[[], GitHubChange], sleeps: Sleeps) -> None:
    res = setup(repo, fake, count=6)
    fake.s.diff["a.py"].discard(4)  # GitHub disagrees with our diff about line 4
    run(forge_for(), res, repo, sleeps)
    assert_once(fake, res)
    comments = {k: v[0] for k, v in by_fp(fake).items()}
    assert comments["fp-4"]["subject_type"] == "file"
    assert "refused line 4" in str(comments["fp-4"]["body"])
    assert all(comments[f"fp-{n}"]["subject_type"] == "line" for n in (1, 2, 3, 5, 6))


def test_all_faults_at_once(repo, fake: FakeGitHub,  # type: ignore[no-untyped-def]
                            forge_for: Callable[[], GitHubChange], sleeps: Sleeps) -> None:
    res = setup(repo, fake, count=12)
    fake.s.diff["a.py"].discard(7)
    fake.faults += [Fault(r"POST /pulls/\d+/reviews$", "secondary"),
                    Fault(r"POST /pulls/\d+/reviews$", "502-after"),
                    Fault(r"POST /pulls/\d+/reviews$", "502"),
                    Fault(r"POST /issues/\d+/comments$", "timeout-after")]
    run(forge_for(), res, repo, sleeps)
    fake.faults = [Fault("graphql:query", "timeout"), Fault("graphql:mutation", "timeout-after")]
    fixed = result(res.head, res.findings[1:], res.changes)  # fp-1 fixed
    outcome = run(forge_for(), fixed, repo, sleeps)
    assert outcome.status == "published"
    assert_once(fake, res)
    first = int(by_fp(fake)["fp-1"][0]["id"])  # type: ignore[call-overload]
    assert fake.s.threads[first]["resolved"] is True
    assert all(f.hit for f in fake.faults)


def test_threads_unreadable_leaves_them_open(repo, fake: FakeGitHub,  # type: ignore[no-untyped-def]
                                             forge_for: Callable[[], GitHubChange],
                                             sleeps: Sleeps) -> None:
    res = setup(repo, fake, count=3)
    run(forge_for(), res, repo, sleeps)
    fake.faults.append(Fault("graphql:query", "502", times=10))
    outcome = run(forge_for(), result(res.head, res.findings[1:], res.changes), repo, sleeps)
    assert outcome.status == "published"
    assert not any(t["resolved"] for t in fake.s.threads.values())
    assert "left open" in fake.summaries()[0]["body"]
    assert_once(fake, res)


def test_resolve_failing_for_good_is_retried_next_run(  # type: ignore[no-untyped-def]
        repo, fake: FakeGitHub, forge_for: Callable[[], GitHubChange], sleeps: Sleeps) -> None:
    res = setup(repo, fake, count=2)
    run(forge_for(), res, repo, sleeps)
    fixed = result(res.head, res.findings[1:], res.changes)
    fake.faults.append(Fault("graphql:mutation", "502", times=4))
    assert run(forge_for(), fixed, repo, sleeps).status == "published"
    root = int(by_fp(fake)["fp-1"][0]["id"])  # type: ignore[call-overload]
    assert fake.s.threads[root]["resolved"] is False
    run(forge_for(), fixed, repo, sleeps)
    assert fake.s.threads[root]["resolved"] is True
    assert_once(fake, res)


@pytest.mark.parametrize("kind", ["502-after", "502", "timeout-after", "timeout"])
def test_an_uncertain_check_run_creation_leaves_one_check_run(
        fake: FakeGitHub, forge_for: Callable[[], GitHubChange], sleeps: Sleeps, kind: str) -> None:
    """A lost answer to the creation: the run is looked up by its external id, not repeated."""
    from bot.forges.base import Annotation, StatusReport
    notes = tuple(Annotation("a.py", n, n, Severity.WARNING, "ruff F841", f"m{n}") for n in range(1, 61))
    fault = Fault(r"POST /check-runs$", kind)
    fake.faults.append(fault)
    assert forge_for().check(StatusReport("reviewbot", fake.s.head, "failure", "t", "s", notes))
    assert fault.hit == 1
    [run] = fake.s.check_runs.values()
    assert len(run["annotations"]) == 60 and run["conclusion"] == "failure"


def test_a_review_that_appears_after_it_was_sent_again_is_cleaned(
        repo, fake: FakeGitHub, forge_for: Callable[[], GitHubChange],  # type: ignore[no-untyped-def]
        sleeps: Sleeps) -> None:
    """GitHub answers 502, the re-read does not show the review, it is sent again, and then
    the first one appears too: the duplicate comments are deleted in the same run."""
    res = setup(repo, fake)
    fake.faults.append(Fault(r"POST /pulls/\d+/reviews$", "502-late"))
    run(forge_for(), res, repo, sleeps)
    assert_once(fake, res)
    deletes = [c for c in fake.calls if c.method == "DELETE"]
    assert len(deletes) == len(res.findings)


def test_a_duplicate_somebody_replied_to_is_kept(
        repo, fake: FakeGitHub, forge_for: Callable[[], GitHubChange],  # type: ignore[no-untyped-def]
        sleeps: Sleeps) -> None:
    res = setup(repo, fake, count=1)
    run(forge_for(), res, repo, sleeps)
    [first] = fake.s.comments.values()
    copy = fake.bot_copy(first["id"])  # a second comment for one finding (a lost answer)
    fake.reply(copy, "why?")
    run(forge_for(), res, repo, sleeps)
    assert not [c for c in fake.calls if c.method == "DELETE"]
    assert len(by_fp(fake)["fp-1"]) == 2
