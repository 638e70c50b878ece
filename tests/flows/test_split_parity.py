"""One job and two jobs on the same change, compared: the review and summary with a rule's
rewrite offer, then `/apply` and the apply label on it, run by `reviewbot ci` in one world and
by `reviewbot analyze` then `reviewbot publish` in another, with the same commits; on a
pull request from the same repository and on a fork's that lets maintainers push."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import GitRepo
from tests.flows.conftest import World, git, make_world
from tests.flows.test_comment import summary
from tests.flows.test_split import label_event, split_comment, two_jobs

RULES = ("rules:\n  - id: no-print\n    language: python\n    message: use log($A)\n"
         "    rule: {pattern: print($A)}\n    fix: log($A)\n")
BASE = {"pyproject.toml": "[tool.ruff]\nline-length = 100\n", ".reviewbot.yml": RULES,
        "app.py": "import sys\n\n\ndef main():\n    return sys.argv\n"}
HEAD = {"app.py": "import os\nimport sys\n\n\ndef main():\n    print(sys.argv)\n"
                  "    return sys.argv\n"}
REPLY_KEY = re.compile(r"<!-- reviewbot:reply [0-9a-f]+ -->")
FIXED = "import sys\n\n\ndef main():\n    log(sys.argv)\n    return sys.argv\n"


def review_event(world: World) -> tuple[str, dict[str, Any]]:
    """What `World.review` sends, without running `ci`."""
    captured: dict[str, Any] = {}
    world._run = lambda name, payload: captured.update(event=(name, payload)) or 0  # type: ignore[method-assign]
    world.review()
    del world._run
    return captured["event"]  # type: ignore[no-any-return]


Turn = Callable[[World, Path, pytest.MonkeyPatch], None]


def one_job_review(world: World, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    world.review()


def split_review(world: World, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp / "review"
    folder.mkdir()
    analysed, _, writes = two_jobs(world, folder, monkeypatch, review_event(world))
    assert (analysed, writes) == (0, [])
    monkeypatch.chdir(tmp)


def from_a_fork(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pull request's branch is a fork's that lets maintainers push: GitHub names the fork's
    URL, which git is pointed at a bare repository here (the fake follows its branch)."""
    fork = world.tmp / "fork.git"
    git(world.tmp, "clone", "-q", "--bare", str(world.origin), str(fork))
    world.fake.fork, world.fake.maintainer_can_modify = "someone/demo", True
    world.fake.pushed(world.head, "2026-01-02T09:00:00Z")
    world.fake.origin = fork
    config = world.tmp / "gitconfig"  # the bot's own GIT_CONFIG_* carry its credentials
    config.write_text(f'[url "{fork}"]\n\tinsteadOf = https://github.com/someone/demo.git\n')
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    world.origin = fork  # where the new commit is looked for


def in_world(repo_root: Path, monkeypatch: pytest.MonkeyPatch,
             turns: list[Turn], *, fork: bool = False) -> dict[str, Any]:
    """The turns on a fresh pull request: what it shows and holds after each."""
    out: dict[str, Any] = {"summaries": [], "replies": [], "reactions": []}
    for name in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):  # the bot's commit: one sha in both
        monkeypatch.setenv(name, "2026-01-02T11:00:00Z")
    for world in make_world(GitRepo(repo_root / "repo"), repo_root, monkeypatch, BASE, HEAD):
        if fork:
            from_a_fork(world, monkeypatch)
        for turn in turns:
            turn(world, repo_root, monkeypatch)
            out["summaries"].append(summary(world))
            out["replies"].append(world.replies()[-1] if world.replies() else "")
            out["reactions"].append(world.reactions() if hasattr(world, "cid") else [])
        new = world.branch()
        out["parent"] = git(world.origin, "rev-parse", f"{new}^") == world.head
        out["app"] = git(world.origin, "show", f"{new}:app.py")
        out["log"] = git(world.origin, "log", "-1", "--format=%B", new)
        out["labels"] = world.fake.s.labels.get(7, [])
        out["replies"] = [without_commit(r, new) for r in out["replies"]]
        out["summaries"] = [without_commit(r, new) for r in out["summaries"]]
        out["checks"] = [(r["name"], r["conclusion"], r["output"]["title"])
                         for r in world.fake.s.check_runs.values() if r["head_sha"] == new]
        out["comments"] = sorted(c["body"] for c in world.fake.bot_comments()
                                 if c.get("commit_id") == new)
    return out


def command(body: str, user: str = "ada") -> Callable[[bool], Turn]:
    def ask(split: bool) -> Turn:
        def turn(world: World, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
            if split:
                split_comment(world, tmp, monkeypatch, user, body)
            else:
                world.comment(user, body)
        return turn
    return ask


apply_comment = command("/apply")


def apply_label(split: bool) -> Turn:
    def turn(world: World, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        if split:
            folder = tmp / "label"
            folder.mkdir()
            two_jobs(world, folder, monkeypatch, label_event(world, "wes"))
            monkeypatch.chdir(tmp)
        else:
            world.label("wes")
    return turn


def without_commit(text: str, commit: str) -> str:
    """`text` with the bot's commit (its date is the run's) and a reply's own key left out."""
    return REPLY_KEY.sub("", text.replace(commit, "NEW").replace(commit[:12], "NEW"))


@pytest.mark.parametrize("ask", [apply_comment, apply_label], ids=["comment", "label"])
def test_a_rule_s_offer_is_shown_and_applied_in_two_jobs_as_in_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ask: Callable[[bool], Turn]) -> None:
    one = in_world(tmp_path / "one", monkeypatch, [one_job_review, ask(False)])
    two = in_world(tmp_path / "two", monkeypatch, [split_review, ask(True)])
    offered = one["summaries"][0]
    assert "ast-grep rule no-print: 1 edit" in offered and "`plan " in offered
    assert two["summaries"][0] == offered
    assert one["app"] == two["app"] == FIXED.rstrip("\n")  # git() strips
    assert one["parent"] and two["parent"]
    plan = offered.split("`plan ")[1].split("`")[0]
    assert plan in one["log"] and plan in two["log"]
    assert one["reactions"] == two["reactions"]
    assert one["labels"] == two["labels"] == []


SCENARIOS = {
    "/apply": [apply_comment],
    "label": [apply_label],
    "/fix": [command("/fix")],
    "/ast-edit then /apply": [command("/ast-edit return $X => return list($X)"), apply_comment],
    "/ast-edit then label": [command("/ast-edit return $X => return list($X)"), apply_label],
}


@pytest.mark.parametrize("asks", SCENARIOS.values(), ids=SCENARIOS.keys())
def test_the_new_head_is_reviewed_in_two_jobs_as_in_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        asks: list[Callable[[bool], Turn]]) -> None:
    """After the bot's commit, the reply, the new head's check run, review and summary are the
    same whether one job or two did it (the second job ran no linter)."""
    one = in_world(tmp_path / "one", monkeypatch, [one_job_review, *(a(False) for a in asks)])
    two = in_world(tmp_path / "two", monkeypatch, [split_review, *(a(True) for a in asks)])
    assert one["parent"] and two["parent"] and one["app"] == two["app"]
    assert "The review of the new head follows in this run" in one["replies"][-1]
    assert two["replies"] == one["replies"]
    assert two["reactions"] == one["reactions"]
    assert one["checks"] and two["checks"] == one["checks"]
    assert two["comments"] == one["comments"]
    assert two["summaries"] == one["summaries"]


@pytest.mark.parametrize("ask", [apply_comment, apply_label], ids=["comment", "label"])
def test_a_fork_s_pull_request_gets_the_offer_the_commit_and_the_new_head_s_review(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ask: Callable[[bool], Turn]) -> None:
    one = in_world(tmp_path / "one", monkeypatch, [one_job_review, ask(False)], fork=True)
    two = in_world(tmp_path / "two", monkeypatch, [split_review, ask(True)], fork=True)
    assert "ast-grep rule no-print: 1 edit" in one["summaries"][0]
    assert two["summaries"] == one["summaries"]
    assert one["parent"] and two["parent"] and two["app"] == one["app"] == FIXED.rstrip("\n")
    assert "The review of the new head follows in this run" in one["replies"][-1]
    assert two["replies"] == one["replies"] and two["reactions"] == one["reactions"]
    assert one["checks"] and two["checks"] == one["checks"]
