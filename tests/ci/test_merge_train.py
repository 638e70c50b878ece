"""GitLab's merge train pipelines (CI_MERGE_REQUEST_EVENT_TYPE=merge_train) as triggers."""

from __future__ import annotations

import pytest

from bot.ci import gitlab_ci
from bot.errors import BotError, Exit
from bot.forges.base import Range
from tests.ci.test_gitlab_ci import MR

AHEAD = "a" * 40  # what the train merges onto: the car ahead's result, or the target branch
RESULT = "c" * 40  # the train's merged result
TRAIN = {**MR, "CI_MERGE_REQUEST_EVENT_TYPE": "merge_train", "CI_COMMIT_SHA": RESULT,
         "CI_MERGE_REQUEST_TARGET_BRANCH_SHA": AHEAD,
         "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA": "b" * 40}


def test_a_merge_train_pipeline_gates_the_merged_result_against_what_it_merges_onto() -> None:
    trigger = gitlab_ci.from_env(TRAIN)
    assert (trigger.kind, trigger.action) == ("queue", "merge_train")
    assert (trigger.base_sha, trigger.head_sha) == (AHEAD, RESULT)
    assert trigger.number == int(MR["CI_MERGE_REQUEST_IID"])
    assert trigger.target_ref == MR["CI_MERGE_REQUEST_TARGET_BRANCH_NAME"]
    runner = gitlab_ci.GitLabCI(TRAIN)
    assert runner.analysed_range(trigger) == Range(AHEAD, RESULT, True)


@pytest.mark.parametrize("kind", ["merged_result", "detached"])
def test_other_merge_request_pipelines_are_reviews(kind: str) -> None:
    env = {**TRAIN, "CI_MERGE_REQUEST_EVENT_TYPE": kind}
    assert gitlab_ci.from_env(env).kind == "review"


@pytest.mark.parametrize(("name", "value", "says"), [
    ("CI_MERGE_REQUEST_TARGET_BRANCH_SHA", "", "CI_MERGE_REQUEST_TARGET_BRANCH_SHA is not set"),
    ("CI_MERGE_REQUEST_TARGET_BRANCH_SHA", "main", "is not a commit sha"),
    ("CI_MERGE_REQUEST_EVENT_TYPE", "Merge Train", "is not a name"),
])
def test_a_malformed_train_is_refused_naming_the_variable(name: str, value: str,
                                                         says: str) -> None:
    with pytest.raises(BotError) as caught:
        gitlab_ci.from_env({**TRAIN, name: value})
    assert caught.value.code == Exit.USAGE and says in caught.value.message and name in \
        caught.value.message


def test_the_publish_job_of_a_train_takes_only_its_own_analysis() -> None:
    runner = gitlab_ci.GitLabCI(TRAIN)
    project, iid = MR["CI_PROJECT_PATH"], int(MR["CI_MERGE_REQUEST_IID"])
    assert runner.publishing(project, iid, RESULT).kind == "queue"
    with pytest.raises(BotError) as caught:  # the merge request's head is not the train's
        runner.publishing(project, iid, "b" * 40)
    assert caught.value.code == Exit.USAGE
