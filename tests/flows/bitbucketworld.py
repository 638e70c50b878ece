"""A Bitbucket Pipelines run end to end: a real repository, a real bare `origin` the bot
pushes to with git, the pipeline's clone of the default branch, real ruff, and the validating
fake Bitbucket serving `origin`, its pull request #1 following origin's `feature` branch.
Every run is `reviewbot ci` (or `analyze`/`publish`) through `bot.cli.main` with the
variables a Pipelines step sets."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot import cli
from bot.ci import bitbucket_pipelines
from bot.forges.bitbucket.api import Api, Settings
from tests.conftest import GitRepo
from tests.forges.conftest import Sleeps
from tests.forges.fakebitbucket import API, BOT, HUMAN, NOW, REPOSITORY, FakeBitbucket

BASE = {"pyproject.toml": "[tool.ruff]\nline-length = 100\n",
        "app.py": "import sys\n\n\ndef main():\n    print(sys.argv)\n    return sys.argv\n"}
HEAD = {"app.py": "import os\nimport sys\n\n\ndef main():\n    print(sys.argv)\n    unused = 1\n"
                  "    return sys.argv\n"}
FIXED = {"app.py": "import sys\n\n\ndef main():\n    print(sys.argv)\n    unused = 1\n"
                   "    return sys.argv\n"}  # F401 gone, F841 one line up
# Variables a step inherits from the test's own environment that would change the run.
FOREIGN = ("GITLAB_CI", "GITEA_ACTIONS", "FORGEJO_ACTIONS", "GITHUB_ACTIONS", "GITHUB_EVENT_NAME",
           "GITHUB_EVENT_PATH", "GITHUB_TOKEN", "BITBUCKET_PR_ID", "BITBUCKET_TAG",
           "REVIEWBOT_COMMENT_ID", "REVIEWBOT_PR_ID", "REVIEWBOT_HEAD", "REVIEWBOT_COMMANDS")


def git(where: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=where, check=True, capture_output=True,
                          text=True).stdout.strip()


@dataclass
class OriginBitbucket(FakeBitbucket):
    """The fake Bitbucket over a bare repository: the pull request's head is origin's
    `feature` branch as it is when a request comes in."""

    def _route(self, method: str, path: str, query: dict[str, list[str]], body: Any,
               user: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        self.push()
        return super()._route(method, path, query, body, user)

    def comment_by(self, user: dict[str, Any], body: str) -> int:
        """A top-level comment on the pull request, written in Bitbucket's page."""
        comment = {"id": next(self._ids), "raw": body, "user": user, "deleted": False,
                   "created_on": NOW, "updated_on": NOW}
        self.comments.append(comment)
        return int(comment["id"])


@dataclass
class World:
    repo: GitRepo  # a contributor's clone: where the pull request's commits were made
    origin: Path  # the bare repository Bitbucket serves
    checkout: Path  # the pipeline's clone
    fake: OriginBitbucket
    tmp: Path
    monkeypatch: pytest.MonkeyPatch
    base: str
    head: str
    cid: int = 0

    def run(self, variables: dict[str, str], *args: str) -> int:
        for name in FOREIGN:
            self.monkeypatch.delenv(name, raising=False)
        for name, value in variables.items():
            self.monkeypatch.setenv(name, value)
        return cli.main(list(args) or ["ci"])

    def pull_request(self) -> dict[str, str]:
        """What a `pull-requests:` pipeline of the head now sets."""
        return {"BITBUCKET_PR_ID": str(self.fake.number), "BITBUCKET_BRANCH": "feature",
                "BITBUCKET_COMMIT": self.branch(),
                "BITBUCKET_PR_DESTINATION_BRANCH": "main",
                "BITBUCKET_PR_DESTINATION_COMMIT": git(self.origin, "rev-parse", "main")[:12]}

    def review(self, *args: str) -> int:
        return self.run(self.pull_request(), *args)

    def comment(self, body: str, user: dict[str, Any] = HUMAN, *args: str,
                head: str | None = None) -> int:
        """A comment written now, and the custom pipeline the relay starts for it (on the
        default branch, naming the head the webhook named): `reviewbot ci`, or `args`."""
        self.cid = self.fake.comment_by(user, body)
        return self.run(self.commands(head), *args)

    def commands(self, head: str | None = None) -> dict[str, str]:
        """What the relay's custom pipeline for the last comment sets (its command lines as
        the relay copies them)."""
        [said] = [c["raw"] for c in self.fake.comments if c["id"] == self.cid]
        lines = [line.strip() for line in said.splitlines() if line.lstrip().startswith("/")]
        return {"BITBUCKET_BRANCH": "main", "REVIEWBOT_COMMANDS": "\n".join(lines),
                "BITBUCKET_COMMIT": git(self.origin, "rev-parse", "main"),
                "REVIEWBOT_PR_ID": str(self.fake.number), "REVIEWBOT_COMMENT_ID": str(self.cid),
                "REVIEWBOT_HEAD": head or self.branch()}

    def push(self, files: dict[str, str | bytes | None]) -> str:
        """Someone pushes a commit to the pull request's branch."""
        self.repo.git("fetch", "-q", str(self.origin), "feature")
        self.repo.git("checkout", "-q", "-B", "feature", "FETCH_HEAD")
        sha = self.repo.commit(files, "another push")
        self.repo.git("push", "-q", str(self.origin), "feature:feature")
        self.fake.push()
        return sha

    def branch(self) -> str:
        return git(self.origin, "rev-parse", "refs/heads/feature")

    def writes(self) -> list[tuple[str, str]]:
        return [(c.method, c.path.removeprefix(f"/repositories/{REPOSITORY}"))
                for c in self.fake.writes()]

    def ours(self, rule: str) -> list[dict[str, Any]]:
        return [c for c in self.fake.bot_comments() if rule in c["raw"] and "inline" in c]

    def replies(self) -> list[str]:
        return [c["raw"] for c in self.fake.bot_comments()
                if "inline" not in c and "reviewbot:summary" not in c["raw"]]

    def summary(self) -> str:
        [found] = [c["raw"] for c in self.fake.bot_comments() if "reviewbot:summary" in c["raw"]]
        return str(found)

    def status(self) -> str:
        """The `reviewbot` build status on the pull request's head."""
        found = self.fake.statuses.get((self.fake.head_sha, "reviewbot"))
        return str(found["state"]) if found else ""

    def report(self) -> dict[str, Any]:
        return self.fake.reports[(self.fake.head_sha, "reviewbot")]


def env(checkout: Path) -> dict[str, str]:
    """What every Pipelines step sets, and the repository's secured token variable."""
    return {"CI": "true", "BITBUCKET_BUILD_NUMBER": "12", "BITBUCKET_WORKSPACE": "octo",
            "BITBUCKET_REPO_SLUG": "demo", "BITBUCKET_REPO_FULL_NAME": REPOSITORY,
            "BITBUCKET_CLONE_DIR": str(checkout),
            "BITBUCKET_GIT_HTTP_ORIGIN": f"http://bitbucket.org/{REPOSITORY}",
            "REVIEWBOT_BITBUCKET_TOKEN": "bot-token", "REVIEWBOT_BITBUCKET_API": API}


def point_at(monkeypatch: pytest.MonkeyPatch, fake: FakeBitbucket) -> None:
    """The runner's one connection goes to the fake (whose API the environment names)."""
    def open_api(settings: Settings) -> Api:
        assert settings.api_url == API and settings.repository == REPOSITORY
        return Api(settings, http=fake.transport, sleep=Sleeps())
    monkeypatch.setattr(bitbucket_pipelines, "open_api", open_api)


def make_world(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
               ) -> Iterator[World]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    base = repo.commit(dict(BASE), "base")
    repo.branch("feature")
    head = repo.commit(dict(HEAD), "feature")
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo.path), str(origin))
    checkout = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", "--branch", "main", str(origin), str(checkout))
    fake = OriginBitbucket(origin)
    for name in FOREIGN:
        monkeypatch.delenv(name, raising=False)
    for key, value in env(checkout).items():
        monkeypatch.setenv(key, value)
    point_at(monkeypatch, fake)
    yield World(repo, origin, checkout, fake, tmp_path, monkeypatch, base, head)
    # A request Bitbucket's description refuses fails the test, even if the bot coped with it.
    assert fake.errors == [], fake.errors
    assert "extraheader" not in (checkout / ".git" / "config").read_text()


__all__ = ["BOT", "FIXED", "HUMAN", "World", "git", "make_world"]
