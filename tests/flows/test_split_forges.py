"""One job and two jobs on the same change, on GitHub, GitLab and Gitea: a change whose
`.reviewbot.yml` rule has a fix is reviewed (the summary offers the plan), then `/apply`,
`/fix` or the apply label commits. In one world `reviewbot ci` does each turn; in another,
`reviewbot analyze` (no write token) then `reviewbot publish` (the write token, an empty
folder, git to the repository as data). Every reply, reaction, summary, the commit and the
new head's status (check run or commit status) must be the same."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bot import cli
from bot.ci import gitea_actions, gitlab_ci
from tests.ci import gitlab_hooks
from tests.conftest import GitRepo
from tests.flows import giteaworld
from tests.flows import test_gitlab as gitlab_world
from tests.flows.conftest import git, make_world
from tests.flows.test_split import label_event, split_comment, two_jobs
from tests.flows.test_split_parity import BASE, FIXED, HEAD, review_event

REPLY_KEY = re.compile(r"<!-- reviewbot:reply [0-9a-f]+ -->")
LABEL = "reviewbot:apply"


@dataclass
class Observed:
    replies: list[str]
    reactions: list[str]
    summary: str
    status: list[tuple[str, str]]  # the new head's reviewbot check run or commit status
    app: str  # app.py at the branch's head
    parent_is_head: bool


class Side:
    """One forge's world, driven one turn at a time, in one job or in two."""

    def __init__(self, split: bool, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.split, self.tmp, self.monkeypatch = split, tmp, monkeypatch
        self.turns = 0

    def folder(self) -> Path:
        self.turns += 1
        where = self.tmp / f"job-{self.turns}"
        where.mkdir()
        return where

    def run(self, name: str, payload: dict[str, Any]) -> None:  # the two jobs of one event
        raise NotImplementedError


# -- GitHub --------------------------------------------------------------------------------

@contextlib.contextmanager
def github(split: bool, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    for world in make_world(GitRepo(tmp / "repo"), tmp, monkeypatch, BASE, HEAD):
        yield GitHubSide(world, split, tmp, monkeypatch)


class GitHubSide(Side):
    def __init__(self, world: Any, split: bool, tmp: Path, mp: pytest.MonkeyPatch) -> None:
        super().__init__(split, tmp, mp)
        self.world = world

    def review(self) -> None:
        if not self.split:
            self.world.review()
            return
        two_jobs(self.world, self.folder(), self.monkeypatch, review_event(self.world))
        self.monkeypatch.chdir(self.tmp)

    def comment(self, role: str, body: str) -> None:
        user = {"admin": "ada", "write": "wes"}[role]
        if self.split:
            split_comment(self.world, self.tmp, self.monkeypatch, user, body)
        else:
            self.world.comment(user, body)

    def label(self) -> None:
        if not self.split:
            self.world.label("wes")
            return
        two_jobs(self.world, self.folder(), self.monkeypatch, label_event(self.world, "wes"))
        self.monkeypatch.chdir(self.tmp)

    def observe(self) -> Observed:
        w, new = self.world, self.world.branch()
        [summary] = w.fake.summaries()
        return Observed(w.replies(), w.reactions() if hasattr(w, "cid") else [],
                        summary["body"],
                        [(r["conclusion"], r["output"]["title"])
                         for r in w.fake.s.check_runs.values() if r["head_sha"] == new],
                        git(w.origin, "show", f"{new}:app.py"),
                        git(w.origin, "rev-parse", f"{new}^") == w.head)


# -- Gitea ---------------------------------------------------------------------------------

@contextlib.contextmanager
def gitea(split: bool, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    monkeypatch.setattr(giteaworld, "BASE", BASE)
    monkeypatch.setattr(giteaworld, "HEAD", HEAD)
    for world in giteaworld.make_world(GitRepo(tmp / "repo"), tmp, monkeypatch):
        yield GiteaSide(world, split, tmp, monkeypatch)


class GiteaSide(Side):
    def __init__(self, world: Any, split: bool, tmp: Path, mp: pytest.MonkeyPatch) -> None:
        super().__init__(split, tmp, mp)
        self.world = world

    def two_jobs(self, name: str, payload: dict[str, Any]) -> None:
        """analyze with the workflow's token (it reads), publish with its own secret."""
        w, mp, art = self.world, self.monkeypatch, self.folder() / "analysis.json"
        mp.setenv("GITEA_TOKEN", "bot-token")
        mp.delenv("REVIEWBOT_GITEA_TOKEN", raising=False)
        before = len(w.fake.writes())
        assert w.run(name, payload, "analyze", "--repo", str(w.checkout), "--out", str(art)) == 0
        assert len(w.fake.writes()) == before
        mp.delenv("GITEA_TOKEN")
        mp.setenv("REVIEWBOT_GITEA_TOKEN", "bot-token")
        mp.setattr(gitea_actions, "clone_url", lambda env, name: str(w.origin))
        empty = art.parent / "publish-here"
        empty.mkdir()
        mp.chdir(empty)
        w.run(name, payload, "publish", str(art))
        assert list(empty.iterdir()) == []
        mp.chdir(self.tmp)
        mp.setenv("GITEA_TOKEN", "bot-token")

    def review(self) -> None:
        if not self.split:
            self.world.review()
            return
        self.two_jobs("pull_request", self.world.pull_request("opened"))

    def comment(self, role: str, body: str) -> None:
        user = {"admin": "ada", "write": "alice"}[role]
        if not self.split:
            self.world.comment(user, body)
            return
        captured: dict[str, Any] = {}
        self.world.run = lambda name, payload, *a: captured.update(e=(name, payload)) or 0
        self.world.comment(user, body)
        del self.world.run
        self.two_jobs(*captured["e"])

    def label(self) -> None:
        if not self.split:
            self.world.label("alice", LABEL)
            return
        self.world.fake.relabel("alice", LABEL)
        self.two_jobs("pull_request", self.world.pull_request(
            "label_updated", labels=(LABEL,), sender="alice"))

    def observe(self) -> Observed:
        w, new = self.world, self.world.branch()
        return Observed(w.replies(), w.reactions() if w.cid else [], w.summary(),
                        [(s["status"], s["description"]) for s in w.fake.statuses
                         if s["sha"] == new and s["context"] == "reviewbot"],
                        git(w.origin, "show", f"{new}:app.py"),
                        git(w.origin, "rev-parse", f"{new}^") == w.head)


# -- GitLab --------------------------------------------------------------------------------

@contextlib.contextmanager
def gitlab(split: bool, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    for project in gitlab_world.make_project(GitRepo(tmp / "repo"), tmp, monkeypatch, BASE,
                                             HEAD):
        yield GitLabSide(project, split, tmp, monkeypatch)


class GitLabSide(Side):
    def __init__(self, project: Any, split: bool, tmp: Path, mp: pytest.MonkeyPatch) -> None:
        super().__init__(split, tmp, mp)
        self.project = project

    def two_jobs(self, payload: dict[str, Any] | None) -> None:
        """analyze with no token in reach, then publish with the token, in an empty folder;
        `payload`: a webhook's trigger pipeline, None: the merge request pipeline."""
        p, mp, art = self.project, self.monkeypatch, self.folder() / "analysis.json"
        if payload is not None:
            path = art.parent / "trigger-payload.json"
            path.write_text(json.dumps(payload))
            mp.setenv("TRIGGER_PAYLOAD", str(path))
        mp.delenv("REVIEWBOT_GITLAB_TOKEN")
        p.fake.calls.clear()
        assert cli.main(["analyze", "--out", str(art)]) == 0
        assert p.fake.calls == []  # analyze talks to no forge
        mp.setenv("REVIEWBOT_GITLAB_TOKEN", "glpat-bot")
        mp.setattr(gitlab_ci, "clone_url", lambda env, name: str(p.origin))
        empty = art.parent / "empty"
        empty.mkdir()
        mp.chdir(empty)
        cli.main(["publish", str(art)])
        assert list(empty.iterdir()) == []
        mp.chdir(self.tmp)

    def review(self) -> None:
        """The merge request pipeline."""
        p, mp = self.project, self.monkeypatch
        version = p.fake.version
        for key, value in {"CI_PIPELINE_SOURCE": "merge_request_event",
                           "CI_MERGE_REQUEST_IID": "3",
                           "CI_MERGE_REQUEST_DIFF_BASE_SHA": version["base_commit_sha"],
                           "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
                           "CI_COMMIT_SHA": version["head_commit_sha"]}.items():
            mp.setenv(key, value)
        if self.split:
            self.two_jobs(None)
        else:
            cli.main(["ci"])
        mp.setenv("CI_PIPELINE_SOURCE", "trigger")

    def comment(self, role: str, body: str) -> None:
        p = self.project
        who = {"admin": "mia", "write": "dev"}[role]
        if not self.split:
            p.note(who, body)
            return
        user = p.users[who]
        p.note_id = int(p.fake.note_by(user, body)["id"])
        self.two_jobs(gitlab_hooks.note_on_merge_request(
            user, p.note_id, body, p.fake.version["head_commit_sha"]))

    def label(self) -> None:
        p = self.project
        if not self.split:
            p.label("dev")
            return
        p.fake.labels = ["bug", LABEL]
        self.two_jobs(gitlab_hooks.merge_request_update(
            p.users["dev"], ["bug"], ["bug", LABEL], p.fake.version["head_commit_sha"]))

    def observe(self) -> Observed:
        p, new = self.project, self.project.branch()
        return Observed(p.replies(), p.awards() if hasattr(p, "note_id") else [], p.summary(),
                        [(s["status"], s["description"]) for s in p.fake.statuses
                         if s["sha"] == new and s["name"] == "reviewbot"],
                        git(p.origin, "show", f"{new}:app.py"),
                        git(p.origin, "rev-parse", f"{new}^") == p.head)


# -- the comparison ------------------------------------------------------------------------

World = Callable[[bool, Path, pytest.MonkeyPatch], contextlib.AbstractContextManager[Any]]
FORGES: dict[str, World] = {"github": github, "gitlab": gitlab, "gitea": gitea}
SCENARIOS: dict[str, Callable[[Any], None]] = {
    "/apply": lambda side: side.comment("admin", "/apply"),
    "/fix": lambda side: side.comment("admin", "/fix"),
    "label": lambda side: side.label(),
}


def observed(forge: World, split: bool, tmp: Path, monkeypatch: pytest.MonkeyPatch,
             ask: Callable[[Any], None]) -> tuple[Observed, Observed]:
    """(after the review, after the commit) of one world."""
    for name in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):  # the bot's commit: one sha in both
        monkeypatch.setenv(name, "2026-01-02T11:00:00Z")
    with forge(split, tmp, monkeypatch) as side:
        side.review()
        first = side.observe()
        ask(side)
        after = side.observe()
    after.replies = [REPLY_KEY.sub("", r) for r in after.replies]
    return first, after


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("forge", FORGES)
def test_two_jobs_offer_commit_and_review_the_new_head_as_one(
        forge: str, scenario: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ask = SCENARIOS[scenario]
    one_review, one = observed(FORGES[forge], False, tmp_path / "one", monkeypatch, ask)
    two_review, two = observed(FORGES[forge], True, tmp_path / "two", monkeypatch, ask)
    # The review: the rule's offer in the summary, the same page.
    assert "ast-grep rule no-print: 1 edit" in one_review.summary
    assert two_review.summary == one_review.summary
    # The commit, the reply, the reactions, and the new head's review, summary and status.
    assert one.parent_is_head and two.parent_is_head and two.app == one.app
    if scenario != "/fix":
        assert one.app == FIXED.rstrip("\n")
    assert "The review of the new head follows in this run" in one.replies[-1]
    assert two.replies == one.replies
    assert two.reactions == one.reactions
    assert one.status and two.status == one.status
    assert two.summary == one.summary


def test_gitlab_webhook_split_saves_the_state_when_the_new_head_is_not_reviewed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The analyze job cannot read the rewrites `/ast-edit` staged (they are in the summary),
    so it reviewed another plan's commit ahead and publish does not review the new head; it
    still saves the conversation's state: the applied rewrite is no longer staged."""
    with gitlab(True, tmp_path, monkeypatch) as side:
        side.review()
        side.comment("admin", "/ast-edit return $A => return list($A)")
        assert "Staged with" in side.project.summary()
        side.comment("admin", "/apply")
        assert "return list(sys.argv)" in side.observe().app
        assert "so the new head is not reviewed here" in side.project.replies()[-1]
        summary = side.project.summary()
        assert "Staged with" not in summary and "`plan " not in summary
