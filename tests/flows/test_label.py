"""The apply label on `pull_request` `labeled`, end to end against the fake GitHub and a real
origin."""

from __future__ import annotations

import base64
import json
import re

import pytest

from tests.flows.conftest import World, git


def shown_plan(world: World) -> str:
    [found] = world.fake.summaries()
    return str(found["body"]).split("`plan ")[1].split("`")[0]


def test_the_label_commits_the_plan_shown_and_reviews_the_new_head(world: World) -> None:
    assert world.review() == 1  # the gate: F401 is an error
    plan = shown_plan(world)
    assert world.label("wes") == 0
    new = world.branch()
    assert git(world.origin, "rev-parse", f"{new}^") == world.head
    assert git(world.origin, "show", f"{new}:app.py").startswith("import sys\n")
    message = git(world.origin, "log", "-1", "--format=%B", new)
    assert plan in message and "wes" in message
    assert world.fake.s.labels[7] == []  # removed
    [reply] = world.replies()
    assert "The label `reviewbot:apply` was removed." in reply and new in reply
    [summary] = world.fake.summaries()
    assert f"Compared `{new[:12]}`" in summary["body"]
    assert ("DELETE", "/issues/7/labels/reviewbot%3Aapply") in world.writes()
    assert world.checkout.joinpath(".git/config").read_text().count("extraheader") == 0


def test_a_plan_that_differs_from_the_one_shown_commits_nothing(world: World) -> None:
    assert world.review() == 1
    # The summary says another plan was shown (what a second run staging meanwhile leaves).
    [summary] = world.fake.summaries()
    found = re.search(r"<!-- reviewbot:state (\S+) -->", summary["body"])
    assert found
    state = json.loads(base64.b64decode(found.group(1)))
    state["plan"] = "0" * 12
    forged = base64.b64encode(json.dumps(state).encode()).decode()
    summary["body"] = summary["body"].replace(found.group(1), forged)
    assert world.label("max") == 0
    [reply] = world.replies()
    assert "not plan 000000000000 as shown before" in reply
    assert world.branch() == world.head and world.fake.s.labels[7] == []


@pytest.mark.parametrize("user", ["tia", "rex"])
def test_a_label_by_someone_not_allowed_is_removed_with_one_comment(world: World, user: str) -> None:
    assert world.label(user) == 0
    assert world.writes() == [("DELETE", "/issues/7/labels/reviewbot%3Aapply"),
                              ("POST", "/issues/7/comments")]
    [reply] = world.replies()
    assert "may have the label `reviewbot:apply` acted on" in reply and f"@{user} has" in reply
    assert world.branch() == world.head


def test_other_labels_and_bots_send_nothing(world: World) -> None:
    assert world.label("ada", "bug") == 0
    assert world.label("github-actions[bot]", bot=True) == 0
    assert world.label("helper[bot]") == 0
    assert world.fake.calls == []


def test_a_head_that_moved_after_the_label_commits_nothing(world: World) -> None:
    assert world.review() == 1
    labelled_at = world.head
    moved = world.push({"other.py": "x = 1\n"}, at="2026-01-02T10:05:00Z")
    world.fake.reset_calls()
    assert world.label("ada", head=labelled_at) == 0
    [reply] = world.replies()
    assert f"moved to {moved[:12]} after the label was added" in reply
    assert world.branch() == moved and world.fake.s.labels[7] == []
