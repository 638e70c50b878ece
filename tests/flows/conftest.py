"""A pull request conversation end to end: a real repository, a real bare `origin` the bot
pushes to with git, the workflow's checkout of the default branch, real ruff, the real
pipeline and apply engine, and the fake GitHub; users of every permission level."""

from __future__ import annotations

import copy
import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot import cli
from tests.ci.test_github_actions import examples, pr_comment
from tests.conftest import GitRepo
from tests.flows.fake import ChatGitHub
from tests.forges import quick
from tests.forges.conftest import Sleeps

BASE = {"pyproject.toml": "[tool.ruff]\nline-length = 100\n",
        "app.py": "import sys\n\n\ndef main():\n    print(sys.argv)\n    return sys.argv\n"}
HEAD = {"app.py": "import os\nimport sys\n\n\ndef main():\n    print(sys.argv)\n    unused = 1\n"
                  "    return sys.argv\n"}
PUSHED = "2026-01-02T09:00:00Z"  # when GitHub recorded the push of the PR head
WRITTEN = "2026-01-02T10:00:00Z"  # when the comments are written
USERS = {"ada": "admin", "max": "maintain", "wes": "write", "tia": "triage", "rex": "read"}


def git(where: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=where, check=True, capture_output=True,
                          text=True).stdout.strip()


@dataclass
class World:
    repo: GitRepo  # a contributor's clone: where the PR's commits were made
    origin: Path  # the bare repository GitHub serves
    checkout: Path  # the workflow's checkout: the default branch
    fake: ChatGitHub
    tmp: Path
    monkeypatch: pytest.MonkeyPatch
    base: str
    head: str
    flags: tuple[str, ...] = ()  # more arguments for `reviewbot ci`

    def _run(self, name: str, payload: dict[str, Any]) -> int:
        event = self.tmp / f"{name}.json"
        event.write_text(json.dumps(payload))
        self.monkeypatch.setenv("GITHUB_EVENT_NAME", name)
        self.monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
        return cli.main(["ci", "--repo", str(self.checkout), *self.flags])

    def comment(self, user: str, body: str, *, written: str = WRITTEN, bot: bool = False) -> int:
        cid = self.fake.comment_by(user, body)
        payload = pr_comment()
        payload["issue"].update(number=self.fake.number, state="open")
        payload["repository"]["full_name"] = "octo/demo"
        payload["comment"].update(id=cid, body=body, created_at=written)
        payload["comment"]["user"].update(login=user, type="Bot" if bot else "User")
        self.cid = cid
        return self._run("issue_comment", payload)

    def label(self, user: str, name: str = "reviewbot:apply", *, head: str | None = None,
              bot: bool = False) -> int:
        with self.fake._lock:
            self.fake.s.labels.setdefault(self.fake.number, []).append(name)
        payload = copy.deepcopy(next(p for p in examples()["pull_request"]
                                     if p["action"] == "labeled"))
        pr = payload["pull_request"]
        pr.update(number=self.fake.number, state="open")
        pr["head"].update(sha=head or self.fake.s.head, ref="feature")
        pr["base"].update(sha=self.base, ref="main")
        for side in ("head", "base"):
            pr[side]["repo"]["full_name"] = "octo/demo"
        payload["label"]["name"] = name
        payload["sender"].update(login=user, type="Bot" if bot else "User")
        return self._run("pull_request", payload)

    def review(self) -> int:
        payload = copy.deepcopy(next(p for p in examples()["pull_request"] if p["action"] == "opened"))
        pr = payload["pull_request"]
        pr.update(number=self.fake.number, state="open")
        pr["head"].update(sha=self.fake.s.head, ref="feature")
        pr["base"].update(sha=self.base, ref="main")
        for side in ("head", "base"):
            pr[side]["repo"]["full_name"] = "octo/demo"
        return self._run("pull_request", payload)

    def push(self, files: dict[str, str | bytes | None], at: str) -> str:
        """Someone else pushes a commit to the PR branch, recorded by GitHub at `at`."""
        before = self.branch()
        self.repo.git("fetch", "-q", str(self.origin), "feature")
        self.repo.git("checkout", "-q", "-B", "feature", "FETCH_HEAD")
        sha = self.repo.commit(files, "another push")
        self.repo.git("push", "-q", str(self.origin), "feature:feature")
        git(self.origin, "update-ref", f"refs/pull/{self.fake.number}/head", sha)
        self.fake.pushed(sha, at, before)
        return sha

    def branch(self) -> str:
        return git(self.origin, "rev-parse", "refs/heads/feature")

    def writes(self) -> list[tuple[str, str]]:
        return [(c.method, c.path.removeprefix("/repos/octo/demo")) for c in self.fake.calls
                if c.write]

    def replies(self) -> list[str]:
        return [c["body"] for c in self.fake.s.issue_comments.values()
                if c["user"]["login"] == "github-actions[bot]" and "reviewbot:summary" not in c["body"]]

    def reactions(self, cid: int | None = None) -> list[str]:
        return [r["content"] for r in self.fake.s.reactions.get(cid or self.cid, [])]


@pytest.fixture(name="sleeps")
def sleeps_fixture() -> Sleeps:
    return Sleeps()


@pytest.fixture
def world(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    yield from make_world(repo, tmp_path, monkeypatch, BASE, HEAD)


def make_world(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
               base_files: dict[str, str], head_files: dict[str, str]) -> Iterator[World]:
    base = repo.commit(dict(base_files), "base")
    repo.branch("feature")
    head = repo.commit(dict(head_files), "feature")
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo.path), str(origin))
    git(origin, "update-ref", "refs/pull/7/head", head)
    checkout = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", "--branch", "main", str(origin), str(checkout))
    diff = {path: set(range(1, 40)) for path in head_files}
    sleeps = Sleeps()
    with ChatGitHub(head, base, diff, origin) as fake:
        fake.pushed(head, PUSHED)
        for login, role in USERS.items():
            fake.grant(login, role)
        fake.grant("deployer[bot]", "write", bot=True)
        env = {"GITHUB_REPOSITORY": "octo/demo", "GITHUB_TOKEN": "t0ken",
               "GITHUB_API_URL": fake.api_url, "GITHUB_GRAPHQL_URL": fake.graphql_url,
               "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")}
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        quick.github(monkeypatch, sleeps, timeout=2.0)
        yield World(repo, origin, checkout, fake, tmp_path, monkeypatch, base, head)
        assert fake.errors == []
