"""Bitbucket Pipelines' two steps against one: `reviewbot analyze` in a step that holds no
token (it runs the pull request's code), then `reviewbot publish` in a step that alone holds
it (a deployment's variable), in an empty folder with git to the repository as data. What
Bitbucket shows must be what one step shows: the comments, the summary, the Code Insights
report and its annotations, the build status."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.ci import bitbucket_pipelines
from tests.conftest import GitRepo
from tests.flows.bitbucketworld import BOT, HUMAN, World, git, make_world


def shown(world: World) -> dict[str, Any]:
    fake = world.fake
    return {"comments": sorted((c["inline"]["path"], c["inline"]["to"], c["raw"])
                               for c in fake.bot_comments() if "inline" in c),
            "summary": world.summary(), "status": world.status(),
            "report": {k: v for k, v in world.report().items()
                       if k not in ("uuid", "created_on", "updated_on")},
            "annotations": sorted((a["external_id"], a["summary"], a["line"])
                                  for a in fake.annotations[(fake.head_sha, "reviewbot")])}


def two_steps(world: World, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    tmp.mkdir(parents=True, exist_ok=True)
    art = tmp / "analysis.json"
    monkeypatch.delenv("REVIEWBOT_BITBUCKET_TOKEN")
    world.fake.calls.clear()
    assert world.run(world.pull_request(), "analyze", "--out", str(art)) == 0
    assert world.fake.calls == []  # analyze talks to no forge
    monkeypatch.setenv("REVIEWBOT_BITBUCKET_TOKEN", "bot-token")
    monkeypatch.setattr(bitbucket_pipelines, "clone_url", lambda env, name: str(world.origin))
    empty = tmp / "publish-here"
    empty.mkdir()
    monkeypatch.chdir(empty)
    code = world.run(world.pull_request(), "publish", str(art))
    assert list(empty.iterdir()) == []
    monkeypatch.chdir(tmp)
    return code


def test_analyze_without_the_token_then_publish_shows_what_one_step_shows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for one in make_world(GitRepo(tmp_path / "one" / "repo"), tmp_path / "one", monkeypatch):
        assert one.review() == 1
        expected = shown(one)
    for two in make_world(GitRepo(tmp_path / "two" / "repo"), tmp_path / "two", monkeypatch):
        assert two_steps(two, tmp_path / "two", monkeypatch) == 1
        assert shown(two) == expected
        # the second pair on the same head writes nothing
        assert two_steps(two, tmp_path / "two" / "again", monkeypatch) == 1
        assert two.fake.writes() == []  # (two_steps starts with no call recorded)


# -- the commands' pipeline in two steps -----------------------------------------------------

def in_two_steps(world: World, body: str, user: dict[str, Any] = HUMAN) -> int:
    """The relay's custom pipeline for a comment written now, as the example runs it:
    `reviewbot analyze` in a step without the token, which talks to no forge, then `reviewbot
    publish` with it in an empty folder (no clone: git fetches the pull request as data)."""
    art = world.tmp / f"commands-{len(world.fake.comments)}.json"
    world.monkeypatch.delenv("REVIEWBOT_BITBUCKET_TOKEN")
    world.fake.calls.clear()
    assert world.comment(body, user, "analyze", "--out", str(art)) == 0
    assert world.fake.calls == []  # the step that ran the pull request's tools sent nothing
    world.monkeypatch.setenv("REVIEWBOT_BITBUCKET_TOKEN", "bot-token")
    world.monkeypatch.setattr(bitbucket_pipelines, "clone_url",
                              lambda env, name: str(world.origin))
    empty = world.tmp / f"publish-{len(world.fake.comments)}"
    empty.mkdir()
    world.monkeypatch.chdir(empty)
    code = world.run(world.commands(), "publish", str(art))
    assert list(empty.iterdir()) == []
    world.monkeypatch.chdir(world.tmp)
    return code


def replies(world: World) -> list[str]:
    """The replies with the commit's sha in them named by their place (a commit's sha has its
    time in it), and each reply's own random marker left out."""
    out = []
    for text in world.replies():
        for n, sha in enumerate(git(world.origin, "rev-list", world.branch()).split()):
            text = text.replace(sha, f"<commit {n}>").replace(sha[:12], f"<commit {n}>")
        out.append(re.sub(r"reviewbot:reply [0-9a-f]+", "reviewbot:reply <id>", text))
    return out


def after_commands(world: World) -> dict[str, Any]:
    """What one step and two show after the commands: the replies, the commits on the
    branch (message and tree), the new head's report, status and comments."""
    new = world.branch()
    commits = [git(world.origin, "log", "-1", "--format=%s%n%b%n%T", sha)
               for sha in git(world.origin, "rev-list", f"{world.head}..{new}").split()]
    # The new head's sha differs between the runs (a commit's time is in it): named.
    seen = json.loads(json.dumps(shown(world)).replace(new[:12], "<head>"))
    return {"replies": replies(world), "commits": commits, **seen}


def split_like_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                   comments: list[str]) -> dict[str, Any]:
    """The same comments, answered in one step then in two: what Bitbucket shows after."""
    results = []
    for name, steps in (("one", 1), ("two", 2)):
        for world in make_world(GitRepo(tmp_path / name / "repo"), tmp_path / name, monkeypatch):
            world.fake.permissions[BOT["account_id"]] = "admin"
            assert world.review() == 1
            for body in comments:
                assert (world.comment(body) if steps == 1 else in_two_steps(world, body)) == 0
            results.append(after_commands(world))
    one, two = results
    assert two == one
    return one


def test_fix_in_two_steps_commits_and_reviews_like_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = split_like_one(tmp_path, monkeypatch, ["/fix"])
    assert len(seen["commits"]) == 1 and "The review of the new head follows" in \
        seen["replies"][-1]
    assert seen["status"] == "FAILED"  # the new head's: F841 is no safe fix
    assert "<head>" in seen["summary"]


def test_ast_edit_then_apply_plan_in_two_steps_like_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each comment its own pipeline: /apply commits the plan /ast-edit staged, the same commit
    as one step makes. The token-less analyze step cannot read the staged rewrites (they are
    in the summary comment), so it reviewed another plan's commit ahead: publish says the new
    head is not reviewed there, and the push's own pipeline reviews it, as one step did."""
    results = []
    for name, steps in (("one", 1), ("two", 2)):
        for world in make_world(GitRepo(tmp_path / name / "repo"), tmp_path / name, monkeypatch):
            world.fake.permissions[BOT["account_id"]] = "admin"
            def answer(body: str, world: World = world, steps: int = steps) -> int:
                return world.comment(body) if steps == 1 else in_two_steps(world, body)
            assert world.review() == 1
            assert answer("/ast-edit print($A) => log($A)") == 0
            plan = world.summary().split("`plan ")[1].split("`")[0]
            assert answer("/apply 0123456789ab") == 0  # another plan: nothing committed
            assert world.branch() == world.head
            assert answer(f"/apply {plan}") == 0
            new = world.branch()
            assert "log(sys.argv)" in git(world.origin, "show", f"{new}:app.py")
            assert plan in git(world.origin, "log", "-1", "--format=%B", new)
            if steps == 2:  # the applied rewrite is no longer staged; the new head unreviewed
                assert "so the new head is not reviewed here" in world.replies()[-1]
                assert "Staged with" not in world.summary()
                assert "`plan " not in world.summary()
            assert world.review() == 1  # the pull request's pipeline for the pushed head
            results.append(after_commands(world))
    one, two = results
    assert len(one["commits"]) == 1
    assert two["replies"][:-1] == one["replies"][:-1]
    assert {k: v for k, v in two.items() if k not in ("replies", "summary")} == \
        {k: v for k, v in one.items() if k not in ("replies", "summary")}
    # The publish step that did not review the new head saved the conversation's state: the
    # push's own review shows the same summary as one step's.
    assert two["summary"] == one["summary"]


def test_review_and_help_in_two_steps_like_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = split_like_one(tmp_path, monkeypatch, ["/review", "/help"])
    assert seen["commits"] == [] and "/ignore FINGERPRINT REASON" in seen["replies"][-1]


@pytest.fixture
def world(repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[World]:
    yield from make_world(repo, tmp_path, monkeypatch)


def test_the_commands_analyze_step_needs_no_token_and_fails_closed(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    """Without REVIEWBOT_HEAD, or with a head on no branch of the repository (a fork's), the
    token-less step stops with one line and asks nothing of Bitbucket; a publish step that
    cannot act on what was analysed commits nothing."""
    world.monkeypatch.delenv("REVIEWBOT_BITBUCKET_TOKEN")
    world.cid = world.fake.comment_by(HUMAN, "/fix")
    art = world.tmp / "analysis.json"
    variables = world.commands()
    del variables["REVIEWBOT_HEAD"]
    assert world.run(variables, "analyze", "--out", str(art)) == 2
    assert "REVIEWBOT_HEAD is not set" in capsys.readouterr().err
    assert world.run(world.commands("ab" * 6), "analyze", "--out", str(art)) == 2
    assert "is on no branch of the repository" in capsys.readouterr().err
    assert world.fake.calls == [] and not art.exists()
    # An abbreviated head, as a webhook may send it, is found on the branches.
    assert world.run(world.commands(world.head[:12]), "analyze", "--out", str(art)) == 0
    assert world.fake.calls == []
    # A head pushed after the analysis: publish does nothing but say so.
    world.monkeypatch.setenv("REVIEWBOT_BITBUCKET_TOKEN", "bot-token")
    world.monkeypatch.setattr(bitbucket_pipelines, "clone_url",
                              lambda env, name: str(world.origin))
    world.fake.permissions[BOT["account_id"]] = "admin"
    moved = world.push({"other.py": "x = 1\n"})
    assert world.run(world.commands(world.head[:12]), "publish", str(art)) == 0
    assert f"moved to {moved[:12]} after the comment was written" in world.replies()[-1]
    assert world.branch() == moved


def test_a_forks_pull_request_gets_no_command_in_the_publish_step(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    """Bitbucket says the pull request comes from a fork: publish does nothing but say so in
    one line (exit 2: the step fails), whatever the analysis holds."""
    world.fake.permissions[BOT["account_id"]] = "admin"
    art = world.tmp / "analysis.json"
    world.monkeypatch.delenv("REVIEWBOT_BITBUCKET_TOKEN")
    assert world.comment("/fix", HUMAN, "analyze", "--out", str(art)) == 0
    world.monkeypatch.setenv("REVIEWBOT_BITBUCKET_TOKEN", "bot-token")
    pull = world.fake._pull

    def forked() -> tuple[int, Any]:
        status, data = pull()
        data["source"]["repository"] = {**data["source"]["repository"],
                                        "full_name": "mallory/demo",
                                        "uuid": "{00000000-0000-4000-8000-0000000000bb}"}
        return status, data
    world.monkeypatch.setattr(world.fake, "_pull", forked)
    world.fake.calls.clear()
    assert world.run(world.commands(), "publish", str(art)) == 2
    [line] = capsys.readouterr().err.strip().splitlines()[-1:]
    assert "nothing to publish" in line and "comes from the fork mallory/demo" in line
    assert world.writes() == [] and world.branch() == world.head


def test_a_comment_deleted_before_publish_gets_nothing_done(
        world: World, capsys: pytest.CaptureFixture[str]) -> None:
    world.fake.permissions[BOT["account_id"]] = "admin"
    art = world.tmp / "analysis.json"
    world.monkeypatch.delenv("REVIEWBOT_BITBUCKET_TOKEN")
    assert world.comment("/fix", HUMAN, "analyze", "--out", str(art)) == 0
    world.monkeypatch.setenv("REVIEWBOT_BITBUCKET_TOKEN", "bot-token")
    world.fake.comments[-1]["deleted"] = True
    world.fake.calls.clear()
    assert world.run(world.commands(), "publish", str(art)) == 2
    assert f"comment {world.cid} was deleted" in capsys.readouterr().err
    assert world.writes() == [] and world.branch() == world.head
