"""Gitea and Forgejo Actions triggers from payloads shaped as Gitea's webhook structs
(`modules/structs/hook.go`: PullRequestPayload, IssueCommentPayload,
WorkflowDispatchPayload), kept as JSON in `gitea_events/`."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from bot.ci import gitea_actions
from bot.ci.gitea_actions import active, api, from_env, parse, token, unhandled
from bot.errors import BotError, Exit

EVENTS = Path(__file__).parent / "gitea_events"
HEAD = "3f5a6c0e1b2d4a6f8e9c0b1a2d3e4f5a6b7c8d9e"


def event(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EVENTS / f"{name}.json").read_text())
    return data


def env_for(tmp_path: Path, name: str, payload: dict[str, Any], **extra: str) -> dict[str, str]:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload))
    return {"GITEA_ACTIONS": "true", "GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": str(path),
            "GITHUB_API_URL": "https://gitea.test/api/v1", "GITHUB_REPOSITORY": "octo/demo",
            "GITHUB_SERVER_URL": "https://gitea.test", **extra}


@pytest.mark.parametrize("action", ["opened", "synchronized", "reopened"])
def test_a_pull_request_push_or_opening_is_a_review(tmp_path: Path, action: str) -> None:
    trigger = from_env(env_for(tmp_path, "pull_request", event(f"pull_request_{action}")))
    assert (trigger.forge, trigger.kind, trigger.action, trigger.number) == (
        "gitea", "review", action, 7)
    assert trigger.head_sha == HEAD and trigger.base_sha.startswith("0a1b")  # type: ignore[union-attr]
    assert (trigger.repository, trigger.target_ref, trigger.head_ref) == (
        "octo/demo", "main", "feature")
    assert trigger.fork == (action == "synchronized")  # that payload comes from alice's fork
    assert trigger.actor == "alice" and not trigger.actor_is_bot and trigger.open


def test_a_label_change_carries_the_labels_the_pull_request_has_now(tmp_path: Path) -> None:
    trigger = from_env(env_for(tmp_path, "pull_request", event("pull_request_label_updated")))
    assert trigger.kind == "label" and trigger.label is None  # Gitea names no label
    assert trigger.added_labels == ("reviewbot:apply", "bug")


@pytest.mark.parametrize("name", ["pull_request_closed", "pull_request_label_cleared",
                                  "pull_request_edited"])
def test_other_pull_request_actions_need_nothing(name: str) -> None:
    trigger = parse("pull_request", event(name))
    assert trigger.kind == "ignored" and trigger.action in trigger.reason
    line = unhandled(trigger, ("review", "label", "comment", "sweep"))
    assert line.startswith("nothing to do:") and "synchronized" in line


def test_a_comment_on_a_pull_request_is_a_command(tmp_path: Path) -> None:
    trigger = from_env(env_for(tmp_path, "issue_comment", event("issue_comment_created")))
    assert (trigger.kind, trigger.number, trigger.comment_id, trigger.comment_body) == (
        "comment", 7, 123, "/reviewbot apply")
    assert trigger.comment_created_at == "2026-01-01T00:01:00Z" and trigger.actor == "alice"


def test_comments_that_are_not_new_or_not_on_a_pull_request_are_ignored() -> None:
    assert parse("issue_comment", event("issue_comment_edited")).kind == "ignored"
    on_issue = parse("issue_comment", event("issue_comment_on_issue"))
    assert on_issue.kind == "ignored" and "not on a pull request" in on_issue.reason


def test_the_actions_account_is_a_bot() -> None:
    trigger = parse("issue_comment", event("issue_comment_by_actions"))
    assert trigger.actor == "gitea-actions" and trigger.actor_is_bot


def test_schedule_and_dispatch_sweep_the_branch(tmp_path: Path) -> None:
    env = env_for(tmp_path, "workflow_dispatch", event("workflow_dispatch"),
                  GITHUB_REF="refs/heads/main", GITHUB_SHA=HEAD, GITHUB_ACTOR="alice")
    trigger = from_env(env)
    assert (trigger.kind, trigger.target_ref, trigger.head_sha, trigger.repository) == (
        "sweep", "main", HEAD, "octo/demo")
    assert parse("schedule", {}, env).kind == "sweep"


def test_pull_request_target_is_refused() -> None:
    with pytest.raises(BotError) as caught:
        parse("pull_request_target", event("pull_request_opened"))
    assert caught.value.code == Exit.USAGE


@pytest.mark.parametrize(("path", "where"), [
    (("pull_request", "head", "sha"), "pull_request.head.sha"),
    (("pull_request", "base", "repo"), "pull_request.base.repo"),
    (("pull_request", "number"), "pull_request.number"),
    (("pull_request",), "pull_request"),
])
def test_a_malformed_pull_request_names_the_field(path: tuple[str, ...], where: str) -> None:
    payload = copy.deepcopy(event("pull_request_opened"))
    node = payload
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = None
    with pytest.raises(BotError) as caught:
        parse("pull_request", payload)
    assert caught.value.code == Exit.USAGE and f"`{where}" in caught.value.message


@pytest.mark.parametrize(("key", "where"), [("comment", "comment"), ("repository", "repository")])
def test_a_malformed_comment_names_the_field(key: str, where: str) -> None:
    payload = event("issue_comment_created")
    payload[key] = "nope"
    with pytest.raises(BotError) as caught:
        parse("issue_comment", payload)
    assert caught.value.code == Exit.USAGE and f"`{where}" in caught.value.message


def test_payload_files_that_are_missing_or_not_json_are_usage_errors(tmp_path: Path) -> None:
    env = env_for(tmp_path, "pull_request", {})
    (tmp_path / "event.json").write_text("{nope")
    with pytest.raises(BotError) as caught:
        from_env(env)
    assert caught.value.code == Exit.USAGE and "not JSON" in caught.value.message
    with pytest.raises(BotError, match="GITHUB_EVENT_NAME"):
        from_env({"GITEA_ACTIONS": "true"})
    with pytest.raises(BotError, match="not an object"):
        parse("pull_request", [])


def test_which_runner_this_is() -> None:
    assert active({"GITEA_ACTIONS": "true"}) and active({"FORGEJO_ACTIONS": "true"})
    assert active({"GITHUB_API_URL": "https://code.example/api/v1"})
    assert not active({"GITHUB_ACTIONS": "true", "GITHUB_API_URL": "https://api.github.com"})
    assert gitea_actions.forgejo({"FORGEJO_ACTIONS": "true", "GITEA_ACTIONS": "true"})


def test_api_and_token_come_from_the_runner_s_variables() -> None:
    assert api({"GITHUB_API_URL": "https://gitea.test/api/v1/", "GITHUB_REPOSITORY": "o/r"}) == (
        "https://gitea.test/api/v1", "o/r")
    assert api({"GITHUB_SERVER_URL": "https://f.test", "GITHUB_REPOSITORY": "o/r"})[0] == \
        "https://f.test/api/v1"
    with pytest.raises(BotError, match="not a Gitea API URL"):
        api({"GITHUB_API_URL": "https://api.github.com", "GITHUB_REPOSITORY": "o/r"})
    assert token({"GITHUB_TOKEN": "g", "GITEA_TOKEN": "t"}) == "t"
    assert token({"GITHUB_TOKEN": "g", "REVIEWBOT_GITEA_TOKEN": "p"}) == "g"
    assert token({"GITHUB_TOKEN": "g", "REVIEWBOT_GITEA_TOKEN": "p"}, publish=True) == "p"
    with pytest.raises(BotError) as caught:
        token({})
    assert caught.value.code == Exit.USAGE and "GITEA_TOKEN" in caught.value.message
