"""GitLab's merge trains end to end: a train's pipeline (CI_MERGE_REQUEST_EVENT_TYPE=
merge_train) runs on the train's merged result (the merge request merged onto the car ahead),
checked out as the runner does; real ruff and the fake GitLab. One job (`reviewbot ci`) and
two (`analyze` without the token, `publish` with it) give the same gate, commit status and
note; nothing of the merge request's own review is posted again."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot import cli
from bot.publishing.queue import MARKER
from tests.conftest import GitRepo
from tests.flows.test_queue import AHEAD, APP, CALLS_OLD, HARMLESS, QUEUE_BASE
from tests.flows.test_review_gitlab import merge_request_env
from tests.forges import quick
from tests.forges.conftest import Sleeps
from tests.forges.fakegitlab import FakeGitLab


class Train:
    def __init__(self, repo: GitRepo, fake: FakeGitLab, tmp: Path,
                 monkeypatch: pytest.MonkeyPatch) -> None:
        self.repo, self.fake, self.tmp, self.monkeypatch = repo, fake, tmp, monkeypatch
        self.runs = 0

    def car(self, ahead: dict[str, str | bytes | None] | None) -> None:
        """The train's pipeline for !3: the car ahead (main with `ahead`, or main), this merge
        request merged onto it under refs/pipelines/N, fetched at depth 1 and detached."""
        self.runs += 1
        repo = self.repo
        repo.git("checkout", "-q", "--detach", "main")
        base = repo.commit(ahead, "the car ahead") if ahead else repo.git("rev-parse", "main")
        repo.git("merge", "-q", "--no-ff", "-m", "merge train", "feature")
        head = repo.git("rev-parse", "HEAD")
        repo.git("update-ref", f"refs/pipelines/{self.runs}", head)
        repo.git("update-ref", f"refs/train-base/{self.runs}", base)
        repo.checkout("feature")
        clone = self.tmp / f"clone{self.runs}"
        clone.mkdir()
        for args in (["init", "-q"], ["remote", "add", "origin", str(repo.path)],
                     ["fetch", "-q", "--depth", "1", "origin",
                      f"+refs/pipelines/{self.runs}:refs/pipelines/{self.runs}"],
                     ["checkout", "-q", "--detach", head]):
            subprocess.run(["git", *args], cwd=clone, check=True, capture_output=True)
        for key, value in {"CI_COMMIT_SHA": head, "CI_PROJECT_DIR": str(clone),
                           "CI_MERGE_REQUEST_EVENT_TYPE": "merge_train",
                           "CI_MERGE_REQUEST_TARGET_BRANCH_SHA": base,
                           "CI_MERGE_REQUEST_DIFF_BASE_SHA": self.fake.version["base_commit_sha"],
                           "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA":
                               self.fake.version["head_commit_sha"]}.items():
            self.monkeypatch.setenv(key, value)
        self.fake.pipelines.add(head)  # the train's pipeline runs on its merged result
        self.head = head

    def review(self) -> int:
        """The merge request's own pipeline (detached: on its head), before the train."""
        head = self.fake.version["head_commit_sha"]
        clone = self.tmp / "review"
        clone.mkdir()
        for args in (["init", "-q"], ["remote", "add", "origin", str(self.repo.path)],
                     ["fetch", "-q", "origin", "+refs/heads/*:refs/remotes/origin/*"],
                     ["checkout", "-q", "--detach", head]):
            subprocess.run(["git", *args], cwd=clone, check=True, capture_output=True)
        with self.monkeypatch.context() as job:
            job.delenv("CI_MERGE_REQUEST_EVENT_TYPE", raising=False)
            job.delenv("CI_MERGE_REQUEST_TARGET_BRANCH_SHA", raising=False)
            job.delenv("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA", raising=False)
            job.setenv("CI_COMMIT_SHA", head)
            job.setenv("CI_PROJECT_DIR", str(clone))
            job.setenv("CI_MERGE_REQUEST_DIFF_BASE_SHA", self.fake.version["base_commit_sha"])
            return cli.main(["ci"])

    def one_job(self) -> int:
        return cli.main(["ci"])

    def two_jobs(self) -> int:
        art = self.tmp / f"analysis{self.runs}.json"
        with self.monkeypatch.context() as job:  # the analyze job holds no token
            job.delenv("REVIEWBOT_GITLAB_TOKEN")
            writes = len(self.fake.writes())
            assert cli.main(["analyze", "--out", str(art)]) == 0
            assert len(self.fake.writes()) == writes
        return cli.main(["publish", str(art)])

    def notes(self) -> list[str]:
        return [d["notes"][0]["body"] for d in self.fake.discussions
                if MARKER in d["notes"][0]["body"]]


def make_train(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sleeps: Sleeps,
               head: dict[str, str | bytes | None]) -> Iterator[Train]:
    repo.commit(dict(QUEUE_BASE), "base")
    repo.branch("feature")
    repo.commit(head, "feature")
    with FakeGitLab(repo.path) as fake:
        env = merge_request_env(fake, monkeypatch)
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        quick.gitlab(monkeypatch, sleeps, timeout=1.0)
        yield Train(repo, fake, tmp_path, monkeypatch)
        assert fake.errors == []


@pytest.fixture(name="calls_old")
def calls_old_fixture(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                      sleeps: Sleeps) -> Iterator[Train]:
    yield from make_train(repo, tmp_path, monkeypatch, sleeps, dict(CALLS_OLD))


@pytest.fixture(name="harmless")
def harmless_fixture(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                     sleeps: Sleeps) -> Iterator[Train]:
    yield from make_train(repo, tmp_path, monkeypatch, sleeps, dict(HARMLESS))


@pytest.mark.parametrize("jobs", ["one_job", "two_jobs"])
def test_a_car_whose_merge_with_the_car_ahead_breaks_the_code_is_stopped(calls_old: Train,
                                                                         jobs: str) -> None:
    train = calls_old
    train.car(AHEAD)
    assert getattr(train, jobs)() == 1
    # The gate on the train's merged result; no diff thread, no summary: nothing posted again.
    assert [(s["sha"], s["status"]) for s in train.fake.statuses] == [(train.head, "failed")]
    assert train.fake.threads() == [] and train.fake.summaries() == []
    [note] = train.notes()
    assert "merge train stopped this change" in note
    assert "Introduced by the combination (1)" in note and "`app.py:20`" in note
    # The same car again: the note is kept, not repeated.
    assert getattr(train, jobs)() == 1
    assert len(train.notes()) == 1
    # The car ahead leaves the train: this merge request on main passes, and the note says so.
    train.car(None)
    assert getattr(train, jobs)() == 0
    assert train.fake.statuses[-1]["sha"] == train.head
    assert train.fake.statuses[-1]["status"] == "success"
    [note] = train.notes()
    assert "merge train passes" in note


@pytest.mark.parametrize("jobs", ["one_job", "two_jobs"])
def test_a_car_that_introduces_nothing_passes_and_says_nothing(harmless: Train,
                                                              jobs: str) -> None:
    harmless.car(AHEAD)
    assert getattr(harmless, jobs)() == 0
    assert [(s["sha"], s["status"]) for s in harmless.fake.statuses] == [(harmless.head,
                                                                         "success")]
    assert harmless.notes() == [] and harmless.fake.threads() == []


@pytest.fixture(name="unused_import")
def unused_import_fixture(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                          sleeps: Sleeps) -> Iterator[Train]:
    yield from make_train(repo, tmp_path, monkeypatch, sleeps,
                          {"app.py": "import os\n\n\n" + APP})


def test_findings_known_from_the_merge_request_s_review_fail_the_train_as_they_did_it(
        unused_import: Train) -> None:
    train = unused_import
    assert train.review() == 1  # its own review: F401 on the added import, in a diff thread
    threads = len(train.fake.threads())
    assert threads == 1
    train.car(None)
    assert train.one_job() == 1
    assert len(train.fake.threads()) == threads  # nothing posted again
    [note] = train.notes()
    assert "introduced nothing beyond this change's own review" in note
    assert "Already in this change's review (1)" in note and "F401" in note


def test_a_train_pipeline_without_the_sha_it_merges_onto_is_refused(
        harmless: Train, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    harmless.car(AHEAD)
    monkeypatch.delenv("CI_MERGE_REQUEST_TARGET_BRANCH_SHA")
    assert harmless.one_job() == 2
    assert "CI_MERGE_REQUEST_TARGET_BRANCH_SHA is not set" in capsys.readouterr().err
    assert harmless.fake.writes() == []
