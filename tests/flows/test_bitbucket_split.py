"""Bitbucket Pipelines' two steps against one: `reviewbot analyze` in a step that holds no
token (it runs the pull request's code), then `reviewbot publish` in a step that alone holds
it (a deployment's variable), in an empty folder with git to the repository as data. What
Bitbucket shows must be what one step shows: the comments, the summary, the Code Insights
report and its annotations, the build status."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bot.ci import bitbucket_pipelines
from tests.conftest import GitRepo
from tests.flows.bitbucketworld import World, make_world


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
