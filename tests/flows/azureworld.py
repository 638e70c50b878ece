"""An Azure Pipelines run end to end: a real repository, a real bare `origin` the bot pushes
to with git, the pipeline's checkout (every branch fetched, the pull request's head checked
out), real ruff, and the validating fake Azure DevOps serving `origin`, its pull request #1
following origin's `feature` branch (each push an iteration, recorded at the world's `now`).
Every run is `reviewbot ci` (or `analyze`/`publish`) through `bot.cli.main` with the variables
an Azure Pipelines agent sets."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot import cli
from bot.ci import azure_pipelines
from bot.forges.azure.api import Api, Settings
from tests.conftest import GitRepo
from tests.forges.conftest import Sleeps
from tests.forges.fakeazure import (
    BOT,
    HUMAN,
    ORGANIZATION,
    PROJECT,
    REPOSITORY,
    REPOSITORY_ID,
    SERVER,
    FakeAzure,
)

BASE = {"pyproject.toml": "[tool.ruff]\nline-length = 100\n",
        "app.py": "import sys\n\n\ndef main():\n    print(sys.argv)\n    return sys.argv\n"}
HEAD = {"app.py": "import os\nimport sys\n\n\ndef main():\n    print(sys.argv)\n    unused = 1\n"
                  "    return sys.argv\n"}
PUSHED = "2026-01-02T10:00:00Z"  # when the pull request's first push is recorded
WRITTEN = "2026-01-02T10:30:00Z"  # when the comments are written
MAINTAINER = "alice@octo.test"  # HUMAN's unique name, named in REVIEWBOT_AZURE_MAINTAINERS
REX = {"id": "9e3c1b2a-0000-4000-8000-000000000009", "displayName": "Rex",
       "uniqueName": "rex@octo.test"}


def git(where: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=where, check=True, capture_output=True,
                          text=True).stdout.strip()


@dataclass
class OriginAzure(FakeAzure):
    """The fake Azure DevOps over a bare repository: a push to origin's `feature` is a new
    iteration created at `now`; comments are published at `now` too."""

    now: str = PUSHED
    created: dict[int, str] = field(default_factory=dict)

    def push(self, reason: str = "push") -> None:
        super().push(reason)
        self.created[len(self.iterations)] = self.now

    def _route(self, method: str, path: str, query: dict[str, list[str]], body: Any,
               user: dict[str, Any], accept: str) -> tuple[int, Any]:
        tip = self._git("rev-parse", f"refs/heads/{self.head}").strip()
        if self.iterations and tip != self.head_sha:
            self.push()
        return super()._route(method, path, query, body, user, accept)

    def _iteration(self, it: dict[str, Any]) -> dict[str, Any]:
        when = self.created.get(it["id"], self.now)
        return {**super()._iteration(it), "createdDate": when, "updatedDate": when}

    def _new_comment(self, thread: dict[str, Any], text: str, user: dict[str, Any],
                     parent: int = 0, kind: str = "text") -> dict[str, Any]:
        comment = super()._new_comment(thread, text, user, parent, kind)
        comment.update(publishedDate=self.now, lastUpdatedDate=self.now)
        return comment

    def command(self, text: str, user: dict[str, Any] = HUMAN) -> tuple[int, int]:
        """A new thread with one comment, as a person writes it on the pull request's page."""
        thread: dict[str, Any] = {"id": next(self._ids), "status": "active",
                                  "publishedDate": self.now, "lastUpdatedDate": self.now,
                                  "isDeleted": False, "comments": [], "properties": {}}
        comment = self._new_comment(thread, text, user)
        self.threads.append(thread)
        return int(thread["id"]), int(comment["id"])

    def ours(self) -> list[dict[str, Any]]:
        """The bot's finding threads."""
        return [t for t in self.threads if "reviewbot.fingerprint" in t["properties"]
                and t["comments"][0]["author"] is BOT]

    def summaries(self) -> list[dict[str, Any]]:
        return [t for t in self.threads if "reviewbot.summary" in t["properties"]]

    def replies(self) -> list[str]:
        return [str(t["comments"][0]["content"]) for t in self.threads
                if t["comments"][0]["author"] is BOT and not t["properties"]]


@dataclass
class World:
    repo: GitRepo  # a contributor's clone: where the pull request's commits were made
    origin: Path  # the bare repository Azure DevOps serves
    checkout: Path  # the pipeline's checkout
    fake: OriginAzure
    tmp: Path
    monkeypatch: pytest.MonkeyPatch
    base: str
    head: str
    flags: tuple[str, ...] = ()  # more arguments for `reviewbot ci`

    def run(self, *args: str, **variables: str) -> int:
        for key, value in variables.items():
            self.monkeypatch.setenv(key, value)
        return cli.main(list(args) or ["ci", "--repo", str(self.checkout), *self.flags])

    def review(self) -> int:
        """The build validation policy's run for the pull request's head now."""
        git(self.checkout, "fetch", "-q", "origin", "+refs/heads/*:refs/remotes/origin/*")
        git(self.checkout, "checkout", "-q", "--detach", self.fake.head_sha)
        for name in ("REVIEWBOT_PULL_REQUEST", "REVIEWBOT_THREAD", "REVIEWBOT_COMMENT",
                     "REVIEWBOT_HEAD", "REVIEWBOT_TARGET"):
            self.monkeypatch.delenv(name, raising=False)
        return self.run(BUILD_REASON="PullRequest", **PULL_REQUEST,
                        SYSTEM_PULLREQUEST_SOURCECOMMITID=self.fake.head_sha)

    def command(self, text: str, user: dict[str, Any] = HUMAN, *args: str,
                at: str = WRITTEN) -> int:
        """A comment on the pull request written at `at`; its service hook's payload through
        `reviewbot azure-relay`, whose request to the pipelines `runs` operation the fake
        checks (the variables must be settable at queue time); then the run it started, on the
        default branch, with the variables it was given. -1 when no run was started."""
        self.fake.now = at
        thread, comment = self.fake.command(text, user)
        hook = self.tmp / "service-hook.json"
        hook.write_text(json.dumps(service_hook(self.fake, thread, comment, text, user)))
        runs = len(self.fake.runs)
        assert self.run("azure-relay", str(hook), "--pipeline", "7",
                        REVIEWBOT_AZURE_TOKEN="bot-token") == 0
        if len(self.fake.runs) == runs:
            return -1
        sent = self.fake.runs[-1]["sent"]
        return self.queued({k: v["value"] for k, v in sent["variables"].items()},
                           sent["resources"]["repositories"]["self"]["refName"], *args)

    def queued(self, variables: dict[str, str], branch: str, *args: str) -> int:
        """The pipeline's run of `branch` with `variables` (as the relay, or anyone who may
        queue the pipeline, started it)."""
        git(self.checkout, "checkout", "-q", "--detach", "refs/remotes/origin/main")
        for name in ("SYSTEM_PULLREQUEST_PULLREQUESTID", "SYSTEM_PULLREQUEST_TARGETBRANCH",
                     "SYSTEM_PULLREQUEST_SOURCECOMMITID", "SYSTEM_PULLREQUEST_SOURCEBRANCH"):
            self.monkeypatch.delenv(name, raising=False)
        return self.run(*args, BUILD_REASON="Manual", BUILD_SOURCEBRANCH=branch, **variables)

    def push(self, files: dict[str, str | bytes | None], at: str) -> str:
        """Someone pushes a commit to the pull request's branch, recorded at `at`."""
        self.repo.git("fetch", "-q", str(self.origin), "feature")
        self.repo.git("checkout", "-q", "-B", "feature", "FETCH_HEAD")
        sha = self.repo.commit(files, "another push")
        self.repo.git("push", "-q", str(self.origin), "feature:feature")
        self.fake.now = at
        self.fake.push()
        return sha

    def branch(self) -> str:
        return git(self.origin, "rev-parse", "refs/heads/feature")

    def summary(self) -> str:
        [found] = self.fake.summaries()
        return str(found["comments"][0]["content"])

    def status(self) -> str:
        """The newest state of the `reviewbot` status on the newest iteration."""
        newest = len(self.fake.iterations)
        ours = [s for s in self.fake.statuses if s["context"]["genre"] == "reviewbot"
                and s.get("iterationId") == newest]
        return str(ours[-1]["state"]) if ours else ""

    def writes(self) -> list[tuple[str, str]]:
        prefix = f"/{ORGANIZATION}/{PROJECT}/_apis/git/repositories/{REPOSITORY_ID}"
        return [(c.method, c.path.removeprefix(prefix)) for c in self.fake.writes()
                if "/pipelines/" not in c.path]


PULL_REQUEST = {"SYSTEM_PULLREQUEST_PULLREQUESTID": "1",
                "SYSTEM_PULLREQUEST_TARGETBRANCH": "refs/heads/main",
                "SYSTEM_PULLREQUEST_SOURCEBRANCH": "refs/heads/feature"}


def env(checkout: Path, tmp: Path) -> dict[str, str]:
    """What an Azure Pipelines agent sets for a pull request's job (the token mapped)."""
    return {"TF_BUILD": "True", "BUILD_REASON": "PullRequest",
            "SYSTEM_COLLECTIONURI": f"{SERVER}/{ORGANIZATION}/", "SYSTEM_TEAMPROJECT": PROJECT,
            "BUILD_REPOSITORY_ID": REPOSITORY_ID, "BUILD_REPOSITORY_NAME": REPOSITORY,
            "BUILD_REPOSITORY_URI": f"{SERVER}/{ORGANIZATION}/{PROJECT}/_git/{REPOSITORY}",
            "BUILD_SOURCESDIRECTORY": str(checkout), "BUILD_BUILDID": "9",
            "AGENT_TEMPDIRECTORY": str(tmp),
            **PULL_REQUEST, "SYSTEM_ACCESSTOKEN": "bot-token",
            azure_pipelines.MAINTAINERS: MAINTAINER}


def service_hook(fake: FakeAzure, thread: int, comment: int, text: str,
                 user: dict[str, Any]) -> dict[str, Any]:
    """A "Pull request commented on" service hook's payload (Web Hooks, resource version 2.0),
    with what the relay reads."""
    pull = f"{SERVER}/{ORGANIZATION}/{PROJECT}/_apis/git/repositories/{REPOSITORY_ID}" \
           f"/pullRequests/{fake.number}"
    return {
        "subscriptionId": "00000000-0000-4000-8000-000000000001", "notificationId": 3,
        "eventType": "ms.vss-code.git-pullrequest-comment-event", "publisherId": "tfs",
        "resource": {
            "comment": {"id": comment, "parentCommentId": 0, "author": user, "content": text,
                        "publishedDate": WRITTEN, "commentType": "text", "isDeleted": False,
                        "_links": {"self": {"href": f"{pull}/threads/{thread}/comments/{comment}"},
                                   "threads": {"href": f"{pull}/threads/{thread}"}}},
            "pullRequest": {
                "pullRequestId": fake.number, "status": "active",
                "repository": {"id": REPOSITORY_ID, "name": REPOSITORY,
                               "project": {"name": PROJECT}, "defaultBranch": "refs/heads/main"},
                "lastMergeSourceCommit": {"commitId": fake.head_sha},
                "sourceRefName": "refs/heads/feature", "targetRefName": "refs/heads/main"}},
        "resourceVersion": "2.0",
        "resourceContainers": {"collection": {"baseUrl": f"{SERVER}/{ORGANIZATION}/"},
                               "project": {"baseUrl": f"{SERVER}/{ORGANIZATION}/"}}}


def point_at(monkeypatch: pytest.MonkeyPatch, fake: FakeAzure, sleeps: Sleeps) -> None:
    """The runner's one connection goes to the fake (whose API the environment names)."""
    def open_api(settings: Settings) -> Api:
        assert settings.repository in (REPOSITORY_ID, "-") and settings.project == PROJECT
        return Api(settings, http=fake.transport, sleep=sleeps)
    monkeypatch.setattr(azure_pipelines, "open_api", open_api)


OTHER_CI = ("GITLAB_CI", "GITEA_ACTIONS", "FORGEJO_ACTIONS", "GITHUB_ACTIONS", "GITHUB_API_URL",
            "GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_TOKEN", "GITHUB_WORKSPACE",
            "BITBUCKET_BUILD_NUMBER", "BITBUCKET_REPO_FULL_NAME", "REVIEWBOT_THREAD",
            "REVIEWBOT_COMMENT", "REVIEWBOT_PULL_REQUEST", "REVIEWBOT_HEAD", "REVIEWBOT_TARGET",
            "REVIEWBOT_AZURE_TOKEN")


def make_world(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
               ) -> Iterator[World]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    base = repo.commit(dict(BASE), "base")
    repo.branch("feature")
    head = repo.commit(dict(HEAD), "feature")
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo.path), str(origin))
    checkout = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", str(origin), str(checkout))
    fake = OriginAzure(origin)
    fake.reviewers.append({**REX, "vote": 10, "isRequired": True})
    fake.settable_variables = {"REVIEWBOT_PULL_REQUEST", "REVIEWBOT_THREAD", "REVIEWBOT_COMMENT",
                               "REVIEWBOT_HEAD", "REVIEWBOT_TARGET"}
    for name in OTHER_CI:
        monkeypatch.delenv(name, raising=False)
    for key, value in env(checkout, tmp_path).items():
        monkeypatch.setenv(key, value)
    point_at(monkeypatch, fake, Sleeps())
    monkeypatch.setattr(azure_pipelines, "clone_url", lambda env: str(origin))
    yield World(repo, origin, checkout, fake, tmp_path, monkeypatch, base, head)
    # A request Azure DevOps's description refuses fails the test, even if the bot coped.
    assert fake.errors == [], "\n".join(fake.errors)
    assert "extraheader" not in (checkout / ".git" / "config").read_text()


__all__ = ["BOT", "HUMAN", "MAINTAINER", "REX", "WRITTEN", "World", "git", "make_world"]
