"""A Gitea (or Forgejo) Actions run end to end: a real repository, a real bare `origin` the
bot pushes to with git, the workflow's checkout of the default branch, real ruff, and the
validating fake Gitea serving `origin`, its pull request #1 following origin's `feature`
branch. Every run is `reviewbot ci` (or `analyze`/`publish`) through `bot.cli.main` with the
variables a Gitea runner sets and a payload shaped as Gitea's webhook structs."""

from __future__ import annotations

import copy
import json
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bot import cli
from bot.ci import gitea_actions
from bot.forges.gitea.api import Api, Settings
from tests.ci.test_gitea_actions import event
from tests.conftest import GitRepo
from tests.forges.conftest import Sleeps
from tests.forges.fakegitea import ACTIONS, API, BOT, HUMAN, REPOSITORY, SERVER, FakeGitea

BASE = {"pyproject.toml": "[tool.ruff]\nline-length = 100\n",
        "app.py": "import sys\n\n\ndef main():\n    print(sys.argv)\n    return sys.argv\n"}
HEAD = {"app.py": "import os\nimport sys\n\n\ndef main():\n    print(sys.argv)\n    unused = 1\n"
                  "    return sys.argv\n"}
WRITTEN = "2026-01-02T10:00:00Z"  # when the comments are written (the head was pushed before)
LABEL = "reviewbot:apply"
# Who may do what, as Gitea's collaborator permission names it.
USERS = {"alice": "write", "ada": "admin", "rex": "read"}


def git(where: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=where, check=True, capture_output=True,
                          text=True).stdout.strip()


def user(login: str, uid: int) -> dict[str, Any]:
    return {"id": uid, "login": login, "full_name": login.title(),
            "email": f"{login}@gitea.test"}


@dataclass
class OriginGitea(FakeGitea):
    """The fake Gitea over a bare repository: the pull request's head follows the `feature`
    branch there (a push Gitea records at `now`), a commit's merged pull request is
    `merged_by[sha]` (`GET /commits/{sha}/pull`), and every label added or removed is a
    `label` entry of the issue's timeline by whoever did it (`GET /issues/{index}/timeline`;
    Gitea's body is "1" for a label added, empty for one removed)."""

    now: str = "2026-01-02T10:30:00Z"  # when Gitea records a push it sees in the origin
    merged_by: dict[str, dict[str, Any]] = field(default_factory=dict)
    timeline: dict[int, list[dict[str, Any]]] = field(default_factory=dict)

    def _route(self, method: str, path: str, raw_path: str, query: dict[str, list[str]],
               body: Any, user: dict[str, Any]) -> tuple[int, Any]:
        tip = self._git("rev-parse", f"refs/heads/{self.head}").strip()
        if tip != self.head_sha:
            self.push(self.now, tip)
            self._git("update-ref", f"refs/pull/{self.number}/head", tip)
        found = re.fullmatch(rf"/repos/{REPOSITORY}/commits/([0-9a-f]+)/pull", path)
        if method == "GET" and found:
            pull = self.merged_by.get(found.group(1))
            return (200, pull) if pull else (404, {"message": "pull request does not exist"})
        found = re.fullmatch(rf"/repos/{REPOSITORY}/issues/(\d+)/timeline", path)
        if method == "GET" and found:
            return self._page(self.timeline.get(int(found.group(1)), []), query)
        before = {n: set(issue["labels"]) for n, issue in self.issues.items()}
        answer = super()._route(method, path, raw_path, query, body, user)
        for number, had in before.items():
            self._record(number, user, had, set(self.issues[number]["labels"]))
        return answer

    def relabel(self, login: str, *names: str) -> None:
        """`login` sets the pull request's labels to `names` in Gitea's page."""
        had = set(self.issues[self.number]["labels"])
        now = {label["id"] for label in self.labels if label["name"] in names}
        self.issues[self.number]["labels"] = now
        self._record(self.number, self.users[login], had, now)

    def _record(self, number: int, user: dict[str, Any], had: set[int], now: set[int]) -> None:
        for lid, added in [*((i, True) for i in sorted(now - had)),
                           *((i, False) for i in sorted(had - now))]:
            self.timeline.setdefault(number, []).append({
                "id": next(self._ids), "type": "label", "body": "1" if added else "",
                "user": {k: user[k] for k in ("id", "login", "full_name", "email")},
                "label": self._label(lid), "created_at": self.now, "updated_at": self.now,
                "issue_url": f"{SERVER}/{REPOSITORY}/issues/{number}",
                "html_url": f"{SERVER}/{REPOSITORY}/pulls/{number}"})

    def comment_by(self, login: str, body: str, when: str = WRITTEN) -> int:
        """A comment on the pull request written by `login` at `when`."""
        comment = {"id": next(self._ids), "issue": self.number, "user": self.users[login],
                   "body": body, "created_at": when}
        self.issue_comments.append(comment)
        return int(comment["id"])

    def merged_pull(self, number: int, login: str) -> dict[str, Any]:
        """The answer of `GET /commits/{sha}/pull` for a pull request `login` opened."""
        repo = {"id": 1, "name": "demo", "full_name": REPOSITORY,
                "clone_url": f"{SERVER}/{REPOSITORY}.git"}
        side = {"label": "x", "ref": "x", "sha": self.head_sha, "repo": repo, "repo_id": 1}
        return {"id": number, "number": number, "title": "A change", "body": "",
                "state": "closed", "user": {k: v for k, v in self.users[login].items()},
                "merged": True, "head": side, "base": {**side, "ref": "main"},
                "created_at": self.now, "updated_at": self.now}


@dataclass
class World:
    repo: GitRepo  # a contributor's clone: where the pull request's commits were made
    origin: Path  # the bare repository Gitea serves
    checkout: Path  # the workflow's checkout: the default branch
    fake: OriginGitea
    tmp: Path
    monkeypatch: pytest.MonkeyPatch
    base: str
    head: str
    flags: tuple[str, ...] = ()  # more arguments for `reviewbot ci`
    cid: int = 0

    def run(self, name: str, payload: dict[str, Any], *args: str) -> int:
        path = self.tmp / f"{name}.json"
        path.write_text(json.dumps(payload))
        self.monkeypatch.setenv("GITHUB_EVENT_NAME", name)
        self.monkeypatch.setenv("GITHUB_EVENT_PATH", str(path))
        return cli.main(list(args) or ["ci", "--repo", str(self.checkout), *self.flags])

    def pull_request(self, action: str = "opened", *, labels: tuple[str, ...] = (),
                     sender: str = "alice", head: str | None = None) -> dict[str, Any]:
        """A pull_request payload for #1 at `head` (else Gitea's head now)."""
        payload = copy.deepcopy(event("pull_request_opened"))
        payload["action"] = action
        payload["number"] = self.fake.number
        pr = payload["pull_request"]
        pr.update(number=self.fake.number, state="open")
        repo = copy.deepcopy(pr["base"]["repo"])
        repo.update(full_name=REPOSITORY, clone_url=f"{SERVER}/{REPOSITORY}.git")
        pr["head"].update(sha=head or self.fake.head_sha, ref="feature", label="feature",
                          repo=repo)
        pr["base"].update(sha=self.base, ref="main", label="main", repo=repo)
        pr["labels"] = [{**next(x for x in self.fake.labels if x["name"] == name),
                         "exclusive": False, "is_archived": False, "description": "",
                         "url": f"{API}/repos/{REPOSITORY}/labels/1"} for name in labels]
        payload["sender"].update(login=sender, username=sender)
        return payload

    def review(self, action: str = "opened") -> int:
        return self.run("pull_request", self.pull_request(action))

    def comment(self, login: str, body: str, *, written: str = WRITTEN) -> int:
        self.cid = self.fake.comment_by(login, body, written)
        payload = copy.deepcopy(event("issue_comment_created"))
        payload["issue"].update(number=self.fake.number, state="open")
        payload["repository"]["full_name"] = REPOSITORY
        payload["comment"].update(id=self.cid, body=body, created_at=written)
        payload["comment"]["user"].update(login=login, username=login)
        payload["sender"].update(login=login, username=login)
        return self.run("issue_comment", payload)

    def label(self, login: str, *labels: str, head: str | None = None) -> int:
        """`login` sets the pull request's labels to `labels`, and the run that starts."""
        self.fake.relabel(login, *labels)
        return self.label_event(login, *labels, head=head)

    def label_event(self, login: str, *labels: str, head: str | None = None) -> int:
        """The run of a label change by `login` whose payload carries `labels` (what the pull
        request had when the event was sent)."""
        return self.run("pull_request", self.pull_request("label_updated", labels=labels,
                                                          sender=login, head=head))

    def push(self, files: dict[str, str | bytes | None], at: str) -> str:
        """Someone pushes a commit to the pull request's branch, recorded by Gitea at `at`."""
        self.repo.git("fetch", "-q", str(self.origin), "feature")
        self.repo.git("checkout", "-q", "-B", "feature", "FETCH_HEAD")
        sha = self.repo.commit(files, "another push")
        self.repo.git("push", "-q", str(self.origin), "feature:feature")
        git(self.origin, "update-ref", f"refs/pull/{self.fake.number}/head", sha)
        self.fake.push(at, sha)
        return sha

    def branch(self) -> str:
        return git(self.origin, "rev-parse", "refs/heads/feature")

    def writes(self) -> list[tuple[str, str]]:
        return [(c.method, c.path.removeprefix(f"/repos/{REPOSITORY}"))
                for c in self.fake.writes()]

    def replies(self) -> list[str]:
        return [c["body"] for c in self.fake.issue_comments
                if c["user"]["id"] == BOT["id"] and "reviewbot:summary" not in c["body"]]

    def reactions(self, cid: int | None = None) -> list[str]:
        return [r["content"] for r in self.fake.reactions.get(cid or self.cid, [])]

    def summary(self) -> str:
        [found] = self.fake.summaries()
        return str(found["body"])

    def status(self) -> str:
        """The newest state of the `reviewbot` commit status on Gitea's head."""
        ours = [s for s in self.fake.statuses
                if s["context"] == "reviewbot" and s["sha"] == self.fake.head_sha]
        return str(ours[-1]["status"]) if ours else ""


def env(fake: FakeGitea, checkout: Path, tmp: Path, *, forgejo: bool = False
        ) -> dict[str, str]:
    """What a Gitea runner (act_runner) or forgejo-runner sets for a job."""
    out = {"GITEA_ACTIONS": "true", "GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": REPOSITORY,
           "GITHUB_API_URL": API, "GITHUB_SERVER_URL": SERVER, "GITHUB_WORKSPACE": str(checkout),
           "GITHUB_RUN_ID": "12", "GITHUB_ACTOR": "alice", "GITEA_TOKEN": "bot-token",
           "GITHUB_STEP_SUMMARY": str(tmp / "summary.md")}
    if forgejo:
        out["FORGEJO_ACTIONS"] = "true"
    return out


def point_at(monkeypatch: pytest.MonkeyPatch, fake: FakeGitea, sleeps: Sleeps) -> None:
    """The runner's one connection goes to the fake (whose API the environment names)."""
    def open_api(settings: Settings) -> Api:
        assert settings.api_url == API and settings.repository == REPOSITORY
        return Api(settings, http=fake.transport, sleep=sleeps)
    monkeypatch.setattr(gitea_actions, "open_api", open_api)


def clear(monkeypatch: pytest.MonkeyPatch) -> None:
    """No variable of another CI (nor a token) leaks in from the test's own environment."""
    for name in ("GITLAB_CI", "GITHUB_TOKEN", "FORGEJO_ACTIONS", "FORGEJO_TOKEN",
                 "REVIEWBOT_GITEA_TOKEN", "GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH",
                 "GITHUB_GRAPHQL_URL", "GITHUB_REF", "GITHUB_SHA"):
        monkeypatch.delenv(name, raising=False)


def make_world(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *,
               version: str = "1.22.6", forgejo: bool = False) -> Iterator[World]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    base = repo.commit(dict(BASE), "base")
    repo.branch("feature")
    head = repo.commit(dict(HEAD), "feature")
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo.path), str(origin))
    git(origin, "update-ref", "refs/pull/1/head", head)
    checkout = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", "--branch", "main", str(origin), str(checkout))
    fake = OriginGitea(origin, version=version)
    for uid, (login, level) in enumerate(USERS.items(), start=60):
        if login not in fake.users:
            fake.users[login] = user(login, uid)
        fake.permissions[login] = level
    clear(monkeypatch)
    for key, value in env(fake, checkout, tmp_path, forgejo=forgejo).items():
        monkeypatch.setenv(key, value)
    point_at(monkeypatch, fake, Sleeps())
    yield World(repo, origin, checkout, fake, tmp_path, monkeypatch, base, head)
    # A request Gitea's description refuses fails the test, even if the bot coped with it.
    assert fake.errors == []
    assert "extraheader" not in (checkout / ".git" / "config").read_text()


__all__ = ["ACTIONS", "BOT", "HUMAN", "LABEL", "World", "git", "make_world"]
