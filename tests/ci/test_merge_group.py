"""GitHub's `merge_group` event from the real payloads of @octokit/webhooks-examples."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from bot.ci import github_actions, merge_group
from bot.errors import BotError, Exit
from tests.ci.test_github_actions import examples


def requested() -> dict[str, Any]:
    return copy.deepcopy(next(p for p in examples()["merge_group"]
                              if p["action"] == "checks_requested"))


def test_checks_requested_gates_the_group_s_head_against_its_base() -> None:
    payload = requested()
    trigger = github_actions.parse("merge_group", payload)
    group = payload["merge_group"]
    assert (trigger.kind, trigger.event, trigger.action) == ("queue", "merge_group",
                                                             "checks_requested")
    assert trigger.repository == "octo-org/octo-repo"
    assert trigger.number == 104  # gh-readonly-queue/main/pr-104-…
    assert (trigger.base_sha, trigger.head_sha) == (group["base_sha"], group["head_sha"])
    assert trigger.target_ref == "main"
    assert trigger.head_ref == group["head_ref"].removeprefix("refs/heads/")


def test_a_destroyed_group_needs_nothing_and_says_so() -> None:
    payload = requested()
    payload["action"] = "destroyed"
    trigger = github_actions.parse("merge_group", payload)
    assert trigger.kind == "ignored"
    line = github_actions.unhandled(trigger, ("review", "queue"))
    assert "merge group `destroyed`" in line and "merge_group checks_requested" in line


@pytest.mark.parametrize(("path", "value", "says"), [
    (("merge_group", "head_ref"), "refs/heads/feature", "not a merge queue branch"),
    (("merge_group", "head_ref"), "refs/heads/gh-readonly-queue/main/pr-x-" + "a" * 40,
     "not a merge queue branch"),
    (("merge_group", "head_sha"), "HEAD", "`merge_group.head_sha` is not a commit sha"),
    (("merge_group", "base_sha"), None, "`merge_group.base_sha` is missing"),
    (("merge_group",), None, "`merge_group` is missing"),
    (("action",), 3, "`action` is not str"),
    (("sender",), "octocat", "`sender` is not an object"),
])
def test_a_malformed_group_is_refused_naming_the_field(path: tuple[str, ...], value: Any,
                                                        says: str) -> None:
    payload = requested()
    target = payload
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(BotError) as caught:
        github_actions.parse("merge_group", payload)
    assert caught.value.code == Exit.USAGE and says in caught.value.message


@pytest.mark.parametrize(("ref", "number"), [
    ("gh-readonly-queue/main/pr-7-" + "0" * 40, 7),
    ("refs/heads/gh-readonly-queue/release/1.x/pr-12-" + "f" * 40, 12),
    ("refs/heads/gh-readonly-queue/main/pr-7", None),
    ("gh-readonly-queue/main/pr-0-" + "0" * 40, None),
    ("main", None),
])
def test_the_pull_request_a_queue_branch_holds(ref: str, number: int | None) -> None:
    assert merge_group.number_of(ref) == number


@pytest.mark.parametrize(("sender", "is_bot"), [
    ({"login": "dependabot[bot]", "type": "User"}, True),  # the `[bot]` login rule
    ({"login": "renovate", "type": "Bot"}, True),
    ({"login": "octocat", "type": "User"}, False),
])
def test_the_queue_s_actor_is_a_bot_as_the_other_events_say(sender: dict[str, str],
                                                            is_bot: bool) -> None:
    payload = requested()
    payload["sender"] = sender
    trigger = github_actions.parse("merge_group", payload)
    assert (trigger.actor, trigger.actor_is_bot) == (sender["login"], is_bot)


@pytest.mark.parametrize(("sender", "says"), [
    ({"login": ""}, "`sender.login` is not a non-empty str"),
    ({"login": "octocat", "type": 1}, "`sender.type` is not str"),
])
def test_the_queue_s_sender_is_read_as_the_other_events_read_it(sender: dict[str, Any],
                                                                says: str) -> None:
    payload = requested()
    payload["sender"] = sender
    with pytest.raises(BotError) as caught:
        github_actions.parse("merge_group", payload)
    assert caught.value.code == Exit.USAGE and says in caught.value.message
