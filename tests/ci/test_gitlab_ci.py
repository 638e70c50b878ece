"""GitLab CI's predefined variables as a Trigger, the token rules, and the choice of CI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.ci import environment, github_actions, gitlab_ci
from bot.errors import BotError, Exit
from tests.ci import gitlab_hooks

SHA = "1" * 40
MR = {"GITLAB_CI": "true", "CI_PIPELINE_SOURCE": "merge_request_event",
      "CI_SERVER_URL": "https://gitlab.example", "CI_API_V4_URL": "https://gitlab.example/api/v4",
      "CI_PROJECT_ID": "42", "CI_PROJECT_PATH": "group/demo", "CI_PROJECT_DIR": "/builds/demo",
      "CI_MERGE_REQUEST_IID": "3", "CI_MERGE_REQUEST_DIFF_BASE_SHA": SHA,
      "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main", "CI_COMMIT_SHA": "2" * 40,
      "CI_JOB_TOKEN": "job-secret"}


def test_a_merge_request_pipeline_is_a_review() -> None:
    trigger = gitlab_ci.from_env(MR)
    assert (trigger.forge, trigger.kind, trigger.number, trigger.repository) == (
        "gitlab", "review", 3, "group/demo")
    assert (trigger.base_sha, trigger.target_ref) == (SHA, "main")
    assert gitlab_ci.api(MR) == ("https://gitlab.example/api/v4", "42")
    assert gitlab_ci.api({**MR, "CI_API_V4_URL": ""})[0] == "https://gitlab.example/api/v4"


@pytest.mark.parametrize("source", ["push", "web", "trigger"])
def test_other_pipelines_need_nothing(source: str) -> None:
    trigger = gitlab_ci.from_env({**MR, "CI_PIPELINE_SOURCE": source})
    assert trigger.kind == "ignored"
    line = gitlab_ci.unhandled(trigger, ("review",))
    assert "\n" not in line and "merge_request_event" in line


def test_a_schedule_is_a_sweep() -> None:
    assert gitlab_ci.from_env({**MR, "CI_PIPELINE_SOURCE": "schedule"}).kind == "sweep"


@pytest.mark.parametrize("name, value", [("CI_MERGE_REQUEST_IID", "x"),
                                         ("CI_MERGE_REQUEST_IID", ""),
                                         ("CI_MERGE_REQUEST_DIFF_BASE_SHA", "main"),
                                         ("CI_PROJECT_PATH", "")])
def test_bad_variables_are_usage_errors(name: str, value: str) -> None:
    with pytest.raises(BotError) as caught:
        gitlab_ci.from_env({**MR, name: value})
    assert caught.value.code == Exit.USAGE and name in caught.value.message


def test_the_token() -> None:
    assert gitlab_ci.token({**MR, "REVIEWBOT_GITLAB_TOKEN": "a", "GITLAB_TOKEN": "b"}) == "a"
    assert gitlab_ci.token({**MR, "GITLAB_TOKEN": "b"}) == "b"
    for env in (MR, {**MR, "GITLAB_TOKEN": "job-secret"}):
        with pytest.raises(BotError) as caught:
            gitlab_ci.token(env)
        assert caught.value.code == Exit.USAGE
        assert "access token" in caught.value.message and "`api`" in caught.value.message
        assert "Developer" in caught.value.message


def test_the_token_variable_can_be_named() -> None:
    env = {**MR, "REVIEWBOT_TOKEN_VARIABLE": "MY_TOKEN", "MY_TOKEN": "c", "GITLAB_TOKEN": "b"}
    assert gitlab_ci.token(env) == "c"
    with pytest.raises(BotError) as caught:
        gitlab_ci.token({**env, "MY_TOKEN": ""})  # named, so nothing else is taken instead
    assert caught.value.code == Exit.USAGE and "MY_TOKEN" in caught.value.message
    with pytest.raises(BotError):
        gitlab_ci.token({**env, "MY_TOKEN": "job-secret"})
    with pytest.raises(BotError) as caught:  # a name the linters' environment would keep
        gitlab_ci.token({**env, "REVIEWBOT_TOKEN_VARIABLE": "GL_KEY", "GL_KEY": "c"})
    assert caught.value.code == Exit.USAGE and "TOKEN, SECRET or PASSWORD" in caught.value.message


def test_the_ci_is_chosen_by_gitlab_ci() -> None:
    assert isinstance(environment.current(MR), gitlab_ci.GitLabCI)
    assert isinstance(environment.current({**MR, "GITLAB_CI": ""}), github_actions.GitHubActions)
    assert isinstance(environment.current({}), github_actions.GitHubActions)


# --- webhook pipelines (CI_PIPELINE_SOURCE=trigger, TRIGGER_PAYLOAD) ----------------------

ALICE = {"id": 7, "username": "alice", "name": "Alice"}
HEAD = "a" * 40


def _hook(tmp_path: Path, payload: object) -> dict[str, str]:
    path = tmp_path / "payload.json"
    path.write_text(json.dumps(payload))
    # GITLAB_USER_* name the trigger token's owner, never who acted.
    return {**MR, "CI_PIPELINE_SOURCE": "trigger", "TRIGGER_PAYLOAD": str(path),
            "GITLAB_USER_LOGIN": "token-owner", "GITLAB_USER_ID": "1"}


def test_a_note_on_a_merge_request_is_a_comment(tmp_path: Path) -> None:
    payload = gitlab_hooks.note_on_merge_request(ALICE, 1244, "/review\nthanks", HEAD)
    trigger = gitlab_ci.from_env(_hook(tmp_path, payload))
    assert (trigger.kind, trigger.number, trigger.repository) == ("comment", 3, "group/demo")
    assert (trigger.actor, trigger.actor_id, trigger.actor_is_bot) == ("alice", 7, False)
    assert (trigger.comment_id, trigger.comment_body) == (1244, "/review\nthanks")
    assert trigger.head_sha == HEAD and trigger.head_ref == "feature" and not trigger.fork
    assert trigger.open and trigger.base_sha is None


def test_a_note_on_a_fork_merge_request_names_the_fork(tmp_path: Path) -> None:
    payload = gitlab_hooks.note_on_merge_request(ALICE, 1, "/fix", HEAD, source="alice/demo",
                                                 source_id=99)
    trigger = gitlab_ci.from_env(_hook(tmp_path, payload))
    assert trigger.fork and trigger.head_repository == "alice/demo"


@pytest.mark.parametrize("payload", [
    gitlab_hooks.note_on_issue(ALICE),
    gitlab_hooks.note_on_merge_request(ALICE, 1, "/help", HEAD, action="update"),
    gitlab_hooks.merge_request_update(ALICE, ["bug"], ["bug"], HEAD, oldrev="b" * 40),  # a push
    gitlab_hooks.merge_request_update(ALICE, ["reviewbot:apply"], [], HEAD),  # a label removed
    {"object_kind": "pipeline", "object_attributes": {}},
], ids=["issue-note", "edited-note", "push", "label-removed", "pipeline"])
def test_other_webhooks_need_nothing(tmp_path: Path, payload: object) -> None:
    trigger = gitlab_ci.from_env(_hook(tmp_path, payload))
    assert trigger.kind == "ignored" and trigger.reason
    line = gitlab_ci.unhandled(trigger, ("review", "comment", "label", "sweep"))
    assert "\n" not in line and "note hook" in line


def test_labels_added_by_an_update(tmp_path: Path) -> None:
    payload = gitlab_hooks.merge_request_update(ALICE, ["bug"], ["bug", "reviewbot:apply", "ui"],
                                                HEAD)
    trigger = gitlab_ci.from_env(_hook(tmp_path, payload))
    assert trigger.kind == "label" and trigger.added_labels == ("reviewbot:apply", "ui")
    assert (trigger.actor, trigger.actor_id, trigger.head_sha, trigger.number) == (
        "alice", 7, HEAD, 3)


def test_a_trigger_pipeline_without_a_payload_needs_nothing() -> None:
    trigger = gitlab_ci.from_env({**MR, "CI_PIPELINE_SOURCE": "trigger"})
    assert trigger.kind == "ignored" and "TRIGGER_PAYLOAD" in trigger.reason


@pytest.mark.parametrize("text", ["not json", "[]", json.dumps({"object_kind": "note"}),
                                  json.dumps(gitlab_hooks.note_on_merge_request(
                                      ALICE, 1, "/help", "main"))])
def test_malformed_payloads_are_usage_errors(tmp_path: Path, text: str) -> None:
    path = tmp_path / "payload.json"
    path.write_text(text)
    with pytest.raises(BotError) as caught:
        gitlab_ci.from_env({**MR, "CI_PIPELINE_SOURCE": "trigger", "TRIGGER_PAYLOAD": str(path)})
    assert caught.value.code == Exit.USAGE


def test_a_payload_file_that_is_not_there_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(BotError) as caught:
        gitlab_ci.from_env({**MR, "CI_PIPELINE_SOURCE": "trigger",
                            "TRIGGER_PAYLOAD": str(tmp_path / "gone.json")})
    assert caught.value.code == Exit.USAGE and "TRIGGER_PAYLOAD" in caught.value.message
