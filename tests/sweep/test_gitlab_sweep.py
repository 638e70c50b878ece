"""`reviewbot ci` in a scheduled GitLab pipeline: the sweep of the branch, kept in a GitLab issue,
each regression attributed to the merge request its commit came in with; a shallow checkout of
a real bare origin, real ruff, the fake GitLab checking every request."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot import cli
from tests.conftest import GitRepo
from tests.forges import quick
from tests.forges.conftest import Sleeps
from tests.forges.fakegitlab import FakeGitLab
from tests.sweep.conftest import APP, CONFIG, LABEL, UTIL, commit_as


@dataclass
class Schedule:
    repo: GitRepo
    origin: Path
    fake: FakeGitLab
    tmp: Path
    monkeypatch: pytest.MonkeyPatch
    runs: int = 0

    def run(self, *extra: str, command: str = "ci") -> int:
        """A scheduled pipeline: the runner's shallow checkout of main, then `reviewbot ci`
        (or another `command`)."""
        self.repo.git("push", "-q", "-f", str(self.origin), "main:main")
        self.runs += 1
        checkout = self.tmp / f"checkout{self.runs}"
        subprocess.run(["git", "clone", "-q", "--depth", "1", "--branch", "main",
                        f"file://{self.origin}", str(checkout)], check=True, capture_output=True)
        head = self.repo.git("rev-parse", "main")
        for key, value in {"CI_PROJECT_DIR": str(checkout), "CI_COMMIT_SHA": head}.items():
            self.monkeypatch.setenv(key, value)
        self.fake.calls.clear()
        return cli.main([command, *extra])

    def issue(self) -> dict[str, object]:
        [found] = self.fake.issues
        return found


@pytest.fixture
def schedule(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
             ) -> Iterator[Schedule]:
    commit_as(repo, "alice", {"pyproject.toml": CONFIG, "app.py": APP, "util.py": UTIL}, "base")
    repo.branch("feature")
    repo.checkout("main")
    origin = tmp_path / "origin.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.path), str(origin)], check=True,
                   capture_output=True)
    sleeps = Sleeps()
    with FakeGitLab(origin) as fake:
        env = {"GITLAB_CI": "true", "CI_PIPELINE_SOURCE": "schedule", "CI_COMMIT_BRANCH": "main",
               "CI_SERVER_URL": fake.root, "CI_API_V4_URL": fake.api_url, "CI_PROJECT_ID": "42",
               "CI_PROJECT_PATH": "group/demo", "CI_JOB_TOKEN": "job-token",
               "REVIEWBOT_GITLAB_TOKEN": "glpat-bot"}
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        for name in ("GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_TOKEN"):
            monkeypatch.delenv(name, raising=False)
        quick.gitlab(monkeypatch, sleeps)
        yield Schedule(repo, origin, fake, tmp_path, monkeypatch)
        assert fake.errors == []


def test_baseline_regression_attributed_to_its_merge_request_then_quiet(
        schedule: Schedule) -> None:
    fake = schedule.fake
    assert schedule.run() == 0
    issue = schedule.issue()
    assert issue["state"] == "closed" and issue["labels"] == [LABEL]
    assert "Baseline recorded at" in str(issue["description"])
    assert [(c.method, c.path) for c in fake.writes()] == [
        ("POST", "/projects/42/issues"), ("PUT", "/projects/42/issues/1")]

    # bob's merge request !5 brings an unused import; its message line would be a quick action
    sha = commit_as(schedule.repo, "bob", {"app.py": "import os\n" + APP}, "/close app: os")
    fake.commit_mrs[sha] = [{"id": 1, "iid": 5, "project_id": 42, "state": "merged",
                             "title": "app: os", "author": {"id": 8, "username": "bob",
                                                            "name": "Bob"}}]
    assert schedule.run() == 0  # exit 0 with a regression open
    issue = schedule.issue()
    text = str(issue["description"])
    assert issue["state"] == "opened" and "F401" in text and sha[:12] in text
    assert "| !5 | bob (pull request by" in text  # GitLab's reference to a merge request
    assert [(c.method, c.path) for c in fake.writes()] == [("PUT", "/projects/42/issues/1")]

    assert schedule.run() == 0  # no new commit: nothing written
    assert fake.writes() == []


def test_a_fixed_regression_closes_the_issue_with_a_note(schedule: Schedule) -> None:
    schedule.run()
    commit_as(schedule.repo, "bob", {"app.py": "import os\n" + APP}, "app: os")
    schedule.run()
    commit_as(schedule.repo, "alice", {"app.py": APP}, "app: drop os")
    assert schedule.run() == 0
    issue = schedule.issue()
    assert issue["state"] == "closed"
    [note] = issue["notes"]  # type: ignore[misc]
    assert "main" in note["body"]
    assert ("POST", "/projects/42/issues/1/notes") in [(c.method, c.path)
                                                       for c in schedule.fake.writes()]


def test_dry_run_reads_and_prints_the_writes(schedule: Schedule,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    schedule.run()
    commit_as(schedule.repo, "bob", {"app.py": "import os\n" + APP}, "app: os")
    capsys.readouterr()
    assert schedule.run("--dry-run") == 0
    assert schedule.fake.writes() == [] and schedule.fake.calls  # it did read the issue
    writes = json.loads(capsys.readouterr().out)["requests"]
    assert writes and "F401" in json.dumps(writes)
    assert {w["method"] for w in writes} <= {"POST", "PUT"}
    assert schedule.issue()["state"] == "closed"  # unchanged


def test_the_sweep_command_in_a_gitlab_job_keeps_a_gitlab_issue(
        schedule: Schedule, monkeypatch: pytest.MonkeyPatch) -> None:
    """`reviewbot sweep` takes the forge from the CI it runs in, as `reviewbot ci` does: in any
    GitLab pipeline (here one started by hand), the issue is GitLab's."""
    monkeypatch.setenv("CI_PIPELINE_SOURCE", "web")
    assert schedule.run("--ref", "main", command="sweep") == 0
    issue = schedule.issue()
    assert issue["state"] == "closed" and issue["labels"] == [LABEL]
    commit_as(schedule.repo, "bob", {"app.py": "import os\n" + APP}, "app: os")
    assert schedule.run("--ref", "main", "--fail-on-regressions", command="sweep") == 1
    issue = schedule.issue()
    assert issue["state"] == "opened" and "F401" in str(issue["description"])
    assert [(c.method, c.path) for c in schedule.fake.writes()] == [
        ("PUT", "/projects/42/issues/1")]
