"""GitHub's merge queue end to end: the real `merge_group` payload of @octokit/webhooks-examples,
real git merges of a pull request onto the entry ahead of it, real ruff, and the fake GitHub
(every request checked against GitHub's OpenAPI description). One job (`reviewbot ci`) and the
fork-safe pair (`reviewbot analyze` with a read-only token, `reviewbot publish` on
`workflow_run`) give the same gate, check run and comment."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot import cli
from bot.ci import github_actions
from bot.publishing.queue import MARKER
from tests.ci.test_github_actions import examples
from tests.conftest import GitRepo
from tests.flows.conftest import World, git, make_world

READ_ONLY = "ro-token"
PADDING = "".join(f"# line {n}\n" for n in range(8))
APP = ("def old():\n    return 1\n\n\ndef first():\n    return old()\n\n\n" + PADDING
       + "\n\ndef last():\n    return 2\n")
QUEUE_BASE = {"pyproject.toml": "[tool.ruff]\nline-length = 100\n", "app.py": APP}
# The entry ahead in the queue renames `old` (the top of the file).
AHEAD = {"app.py": APP.replace("def old():", "def new():").replace("return old()", "return new()")}
# This pull request calls `old` (the bottom of the file): fine on its own, broken once merged.
CALLS_OLD = {"app.py": APP.replace("    return 2\n", "    return old() + 2\n")}
HARMLESS = {"app.py": APP.replace("    return 2\n", "    return 3\n")}


def queue(world: World, ahead: dict[str, str | bytes | None] | None) -> tuple[str, str, str]:
    """The queue's entry for #7: the entry ahead (main with `ahead`, or main itself) and the
    pull request merged onto it, on GitHub's queue branch, checked out as actions/checkout
    does on `merge_group`. Returns (base_sha, head_sha, the queue branch)."""
    repo = world.repo
    name = f"ahead-{len(repo.git('branch', '--list', 'ahead-*').split())}"
    repo.git("checkout", "-q", "-B", name, world.base)
    base = repo.commit(ahead, "the entry ahead") if ahead else world.base
    repo.git("checkout", "-q", "--detach", base)
    repo.git("merge", "-q", "--no-ff", "-m", "Merge pull request #7", "feature")
    head = repo.git("rev-parse", "HEAD")
    branch = f"gh-readonly-queue/main/pr-7-{base}"
    repo.git("push", "-q", "-f", str(world.origin), f"{head}:refs/heads/{branch}")
    git(world.checkout, "fetch", "-q", "origin", branch)
    git(world.checkout, "checkout", "-q", "--detach", head)
    return base, head, branch


def merge_group(base: str, head: str, branch: str) -> dict[str, Any]:
    payload = copy.deepcopy(next(p for p in examples()["merge_group"]
                                 if p["action"] == "checks_requested"))
    payload["merge_group"].update(base_sha=base, head_sha=head, head_ref=f"refs/heads/{branch}",
                                  base_ref="refs/heads/main")
    payload["repository"]["full_name"] = "octo/demo"
    return payload


def one_job(world: World, group: tuple[str, str, str]) -> int:
    return world._run("merge_group", merge_group(*group))


def two_jobs(world: World, group: tuple[str, str, str], run_branch: str | None = None) -> int:
    """`analyze` on the merge_group event with a read-only token, then `publish` on the
    `workflow_run` that follows it (of `run_branch`, default the group's; "": a second job of
    the merge_group workflow), with the write token, in an empty folder: its status."""
    tmp, monkeypatch = world.tmp, world.monkeypatch
    art = tmp / "artifact" / "analysis.json"
    art.parent.mkdir(exist_ok=True)
    event = tmp / "merge_group.json"
    event.write_text(json.dumps(merge_group(*group)))
    monkeypatch.setenv("GITHUB_EVENT_NAME", "merge_group")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    world.fake.read_only.add(READ_ONLY)
    monkeypatch.setenv("GITHUB_TOKEN", READ_ONLY)
    writes = len(world.writes())
    assert cli.main(["analyze", "--repo", str(world.checkout), "--out", str(art)]) == 0
    assert len(world.writes()) == writes  # the job that ran the pull request's code wrote nothing
    if run_branch != "":  # else the second job of the merge_group workflow itself
        run = copy.deepcopy(examples()["workflow_run"][0])
        run["workflow_run"].update(head_sha=group[1], event="merge_group",
                                   head_branch=run_branch or group[2], pull_requests=[])
        event = tmp / "workflow_run.json"
        event.write_text(json.dumps(run))
        monkeypatch.setenv("GITHUB_EVENT_NAME", "workflow_run")
        monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    monkeypatch.setenv("GITHUB_TOKEN", "t0ken")
    monkeypatch.setattr(github_actions, "clone_url", lambda env, repository: str(world.origin))
    empty = tmp / "empty"
    empty.mkdir(exist_ok=True)
    monkeypatch.chdir(empty)
    status = cli.main(["publish", str(art)])
    assert list(empty.iterdir()) == []
    return status


def queue_comments(world: World) -> list[str]:
    return [c["body"] for c in world.fake.s.issue_comments.values() if MARKER in c["body"]]


def checks(world: World) -> list[tuple[str, str]]:
    return [(r["head_sha"], r["conclusion"]) for r in world.fake.s.check_runs.values()]


@pytest.fixture(name="calls_old")
def calls_old_fixture(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                      ) -> Iterator[World]:
    yield from make_world(repo, tmp_path, monkeypatch, QUEUE_BASE, CALLS_OLD)


@pytest.fixture(name="harmless")
def harmless_fixture(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                     ) -> Iterator[World]:
    yield from make_world(repo, tmp_path, monkeypatch, QUEUE_BASE, HARMLESS)


def two_jobs_one_workflow(world: World, group: tuple[str, str, str]) -> int:
    return two_jobs(world, group, "")


@pytest.mark.parametrize("jobs", [one_job, two_jobs, two_jobs_one_workflow],
                         ids=["one job", "two jobs", "two jobs in one workflow"])
def test_an_entry_whose_merge_with_the_entry_ahead_breaks_the_code_is_stopped(
        calls_old: World, jobs: Any) -> None:
    # The pull request alone is clean: its own review passes.
    assert calls_old.review() == 0
    reviews = len(calls_old.fake.s.reviews)
    group = queue(calls_old, AHEAD)
    assert jobs(calls_old, group) == 1
    # The gate where the queue reads it: the check run on the group's head.
    assert checks(calls_old)[-1] == (group[1], "failure")
    assert [sha for sha, _ in checks(calls_old)].count(group[1]) == 1
    # No inline comment in the queue; one comment on the pull request, naming the finding.
    assert len(calls_old.fake.s.reviews) == reviews
    [body] = queue_comments(calls_old)
    assert "merge queue stopped this change" in body
    assert "Introduced by the combination (1)" in body
    assert "`app.py:20`" in body and "F821" in body and "old" in body
    assert "█" in body  # the code frame
    assert "Already in this change's review" not in body
    # A re-run of the same group edits that comment rather than adding one.
    assert jobs(calls_old, group) == 1
    assert len(queue_comments(calls_old)) == 1
    # The entry ahead leaves the queue: the pull request alone on main passes, and the
    # earlier comment says so (none added).
    alone = queue(calls_old, None)
    assert jobs(calls_old, alone) == 0
    assert checks(calls_old)[-1] == (alone[1], "success")
    [body] = queue_comments(calls_old)
    assert "merge queue passes" in body


@pytest.mark.parametrize("jobs", [one_job, two_jobs], ids=["one job", "two jobs"])
def test_an_entry_that_introduces_nothing_passes_and_says_nothing(harmless: World,
                                                                 jobs: Any) -> None:
    group = queue(harmless, AHEAD)
    assert jobs(harmless, group) == 0
    assert checks(harmless) == [(group[1], "success")]
    assert queue_comments(harmless) == []
    assert harmless.fake.s.reviews == []
    summary = (harmless.tmp / "summary.md").read_text()
    assert "Gate ✅ **passes**" in summary


def test_findings_known_from_the_pull_request_s_review_fail_the_group_as_they_did_it(
        world: World) -> None:
    assert world.review() == 1  # the pull request's own review: an unused import and variable
    group = queue(world, None)
    assert one_job(world, group) == 1
    assert checks(world)[-1] == (group[1], "failure")
    [body] = queue_comments(world)
    assert "introduced nothing beyond this change's own review" in body
    assert "Already in this change's review (2)" in body
    assert "Introduced by the combination" not in body


def test_a_merge_group_that_names_no_queue_branch_is_refused(world: World) -> None:
    payload = merge_group(world.base, world.head, "feature")
    assert world._run("merge_group", payload) == 2
    assert world.writes() == []


def test_a_workflow_run_of_another_queue_entry_is_refused(calls_old: World) -> None:
    group = queue(calls_old, AHEAD)
    assert two_jobs(calls_old, group, group[2].replace("/pr-7-", "/pr-8-")) == 2
    assert queue_comments(calls_old) == [] and checks(calls_old) == []


def test_a_fork_s_pull_request_is_not_linted_next_to_the_queue_job_s_token(
        calls_old: World, capsys: pytest.CaptureFixture[str]) -> None:
    calls_old.fake.fork = "someone/demo"
    group = queue(calls_old, AHEAD)
    calls_old.fake.reset_calls()
    assert one_job(calls_old, group) == 2
    assert "comes from a fork" in capsys.readouterr().err
    assert calls_old.writes() == [] and checks(calls_old) == []
    # The two jobs serve it: analyze holds no write token, publish runs nothing of it.
    assert two_jobs(calls_old, group) == 1
    assert checks(calls_old) == [(group[1], "failure")] and len(queue_comments(calls_old)) == 1


def test_a_dry_run_refuses_a_fork_s_pull_request_as_a_run_does(
        calls_old: World, capsys: pytest.CaptureFixture[str]) -> None:
    calls_old.fake.fork = "someone/demo"
    group = queue(calls_old, AHEAD)
    calls_old.flags = ("--dry-run",)
    capsys.readouterr()
    assert one_job(calls_old, group) == 2
    out, err = capsys.readouterr()
    assert "comes from a fork" in err and out == ""
    assert calls_old.writes() == [] and checks(calls_old) == []


def test_a_dry_run_without_a_token_asks_github_whether_it_is_a_fork(
        calls_old: World, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Not the recording's picture of a fresh pull request (one of this repository): GitHub's
    answer, which for a repository that needs a token is a refusal, and the run stops."""
    calls_old.fake.fork = "someone/demo"
    group = queue(calls_old, AHEAD)
    calls_old.flags = ("--dry-run",)
    monkeypatch.delenv("GITHUB_TOKEN")
    capsys.readouterr()
    assert one_job(calls_old, group) == 3
    assert "GitHub refused the token" in capsys.readouterr().err
    assert calls_old.writes() == [] and checks(calls_old) == []


def test_a_dry_run_prints_the_check_run_it_would_create_and_writes_nothing(
        calls_old: World, capsys: pytest.CaptureFixture[str]) -> None:
    group = queue(calls_old, AHEAD)
    calls_old.flags = ("--dry-run",)
    capsys.readouterr()
    assert one_job(calls_old, group) == 1
    out, err = capsys.readouterr()
    printed = json.loads(out)
    assert printed["gate"]["failed"] is True
    [check] = [r for r in printed["requests"] if "check-runs" in str(r.get("path", ""))]
    assert check["body"]["head_sha"] == group[1] and check["body"]["conclusion"] == "failure"
    # The note on the change is an entry of the same document, as GitHub would be sent it.
    [note] = [r for r in printed["requests"] if re.search(r"/issues/7/comments$", r["path"])]
    assert note["method"] == "POST" and "Introduced by the combination" in note["body"]["body"]
    assert "Introduced by the combination" not in err
    assert calls_old.writes() == []


def test_a_token_that_may_only_read_still_gates_by_the_exit_status(
        calls_old: World, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    group = queue(calls_old, AHEAD)
    calls_old.fake.read_only.add(READ_ONLY)
    monkeypatch.setenv("GITHUB_TOKEN", READ_ONLY)
    capsys.readouterr()
    assert one_job(calls_old, group) == 1
    out, _ = capsys.readouterr()
    assert "::error file=app.py,line=20" in out  # the annotations stand in for the check run
    assert "could not comment on PR #7" in out
    assert checks(calls_old) == [] and queue_comments(calls_old) == []
