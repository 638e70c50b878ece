"""The service hook relay (`bot.forges.azure.relay`): what run a "Pull request commented on"
payload starts, and the one-line refusal of a payload that is not one."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from bot.errors import BotError, Exit
from bot.forges.azure.relay import request
from tests.flows.azureworld import BOT, HUMAN

HEAD = "c" * 40


class _Fake:
    number = 1
    head_sha = HEAD


def payload(text: str = "/fix", user: dict[str, Any] = HUMAN) -> dict[str, Any]:
    from tests.flows.azureworld import service_hook

    fake: Any = _Fake()
    return service_hook(fake, 120, 2, text, user)


def test_a_command_starts_a_run_of_the_default_branch_with_five_pointers() -> None:
    relayed = request(payload())
    assert (relayed.collection, relayed.project) == ("https://dev.azure.test/octo/", "demo")
    assert relayed.body == {
        "resources": {"repositories": {"self": {"refName": "refs/heads/main"}}},
        "variables": {k: {"value": v, "isSecret": False} for k, v in {
            "REVIEWBOT_PULL_REQUEST": "1", "REVIEWBOT_THREAD": "120", "REVIEWBOT_COMMENT": "2",
            "REVIEWBOT_HEAD": HEAD, "REVIEWBOT_TARGET": "refs/heads/main"}.items()}}


@pytest.mark.parametrize("text, user, why", [
    ("Looks good", HUMAN, "no command line"), ("/fix", BOT, "own identity")])
def test_no_run_for_a_comment_without_a_command_or_by_the_pipeline(
        text: str, user: dict[str, Any], why: str) -> None:
    relayed = request(payload(text, user))
    assert relayed.body is None and why in relayed.reason


@pytest.mark.parametrize("path, value, named", [
    (("eventType",), "git.push", "eventType"),
    (("resource", "pullRequest", "pullRequestId"), "1", "resource.pullRequest.pullRequestId"),
    (("resource", "comment", "_links", "self", "href"), "https://x/threads/a", "names no thread"),
    (("resource", "pullRequest", "lastMergeSourceCommit", "commitId"), "HEAD", "not a sha"),
    (("resourceContainers",), None, "resourceContainers"),
])
def test_a_malformed_payload_is_refused_naming_the_field(path: tuple[str, ...], value: Any,
                                                         named: str) -> None:
    data = copy.deepcopy(payload())
    where = data
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value
    with pytest.raises(BotError, match=named) as caught:
        request(data)
    assert caught.value.code == Exit.USAGE


def test_without_a_default_branch_it_asks_for_one() -> None:
    data = copy.deepcopy(payload())
    del data["resource"]["pullRequest"]["repository"]["defaultBranch"]
    with pytest.raises(BotError, match="--branch"):
        request(data)
    assert request(data, branch="refs/heads/trunk").body is not None
