"""GitLab CI's predefined variables as a Trigger, the token rules, and the choice of CI."""

from __future__ import annotations

import pytest

from bot.errors import BotError, Exit
from bot.triggers import environment, github_actions, gitlab_ci

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


@pytest.mark.parametrize("source", ["push", "web", "trigger", ""])
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


def test_the_ci_is_chosen_by_gitlab_ci() -> None:
    assert environment.current(MR) is gitlab_ci
    assert environment.current({**MR, "GITLAB_CI": ""}) is github_actions
    assert environment.current({}) is github_actions
