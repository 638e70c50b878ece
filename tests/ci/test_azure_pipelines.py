"""Azure Pipelines' variables as a `Trigger` (`bot.ci.azure_pipelines`): each read by its form,
a malformed one refused with exit status 2 naming it; the logging commands it writes."""

from __future__ import annotations

import pytest

from bot import cli
from bot.ci import azure_pipelines, environment
from bot.ci.azure_pipelines import AzurePipelines, from_env
from bot.errors import BotError, Exit
from bot.forges.base import Annotation
from bot.model import Severity

HEAD = "a" * 40
RUN = {"TF_BUILD": "True", "SYSTEM_COLLECTIONURI": "https://dev.azure.com/octo/",
       "SYSTEM_TEAMPROJECT": "Demo Project", "BUILD_REPOSITORY_NAME": "demo",
       "BUILD_REPOSITORY_ID": "0b6b3c6e-3c47-4b4f-9d27-6a0f1c2f0a11",
       "BUILD_REPOSITORY_URI": "https://dev.azure.com/octo/Demo%20Project/_git/demo",
       "BUILD_SOURCESDIRECTORY": "/home/vsts/work/1/s"}
PULL = {**RUN, "BUILD_REASON": "PullRequest", "SYSTEM_PULLREQUEST_PULLREQUESTID": "7",
        "SYSTEM_PULLREQUEST_TARGETBRANCH": "refs/heads/main",
        "SYSTEM_PULLREQUEST_SOURCEBRANCH": "refs/heads/feature/x",
        "SYSTEM_PULLREQUEST_SOURCECOMMITID": HEAD}
COMMAND = {**RUN, "BUILD_REASON": "Manual", "REVIEWBOT_PULL_REQUEST": "7",
           "REVIEWBOT_THREAD": "120", "REVIEWBOT_COMMENT": "1"}


def test_a_build_validation_run_is_a_review_of_the_source_commit() -> None:
    trigger = from_env(PULL)
    assert (trigger.forge, trigger.kind, trigger.repository, trigger.number) == (
        "azure", "review", "Demo Project/demo", 7)
    assert (trigger.head_sha, trigger.target_ref, trigger.head_ref) == (HEAD, "main",
                                                                        "feature/x")
    assert not trigger.fork
    assert AzurePipelines(PULL).analysed_range(trigger) == (
        azure_pipelines.Range("refs/remotes/origin/main", HEAD, True))


def test_a_service_hooks_run_points_at_a_comment_and_names_nothing_else() -> None:
    trigger = from_env(COMMAND)
    assert (trigger.kind, trigger.number, trigger.comment_id) == ("comment", 7, 1)
    assert trigger.comment_body is None and trigger.actor is None  # the API's, not the run's


def test_a_command_run_needs_all_three_pointers() -> None:
    with pytest.raises(BotError, match="REVIEWBOT_THREAD is not set") as caught:
        from_env({k: v for k, v in COMMAND.items() if k != "REVIEWBOT_THREAD"})
    assert caught.value.code == Exit.USAGE


def test_other_runs_need_nothing() -> None:
    trigger = from_env({**RUN, "BUILD_REASON": "IndividualCI"})
    assert trigger.kind == "ignored" and "IndividualCI" in trigger.reason


def test_a_scheduled_run_sweeps_its_branch() -> None:
    trigger = from_env({**RUN, "BUILD_REASON": "Schedule", "BUILD_SOURCEBRANCH": "refs/heads/main",
                        "BUILD_SOURCEVERSION": HEAD})
    assert (trigger.kind, trigger.target_ref, trigger.head_sha) == ("sweep", "main", HEAD)
    with pytest.raises(BotError, match=r"^BUILD_SOURCEVERSION='main' is not a commit sha"):
        from_env({**RUN, "BUILD_REASON": "Schedule", "BUILD_SOURCEBRANCH": "refs/heads/main",
                  "BUILD_SOURCEVERSION": "main"})


def test_the_work_item_settings_are_read_by_their_form() -> None:
    assert azure_pipelines.work_items({}) == (None, "Task", "To Do", "Done")
    assert azure_pipelines.work_items({"REVIEWBOT_AZURE_TEAM": "Core", "REVIEWBOT_AZURE_WORK_ITEM":
                                       "Bug", "REVIEWBOT_AZURE_WORK_ITEM_STATES": "New, Closed"}
                                      ) == ("Core", "Bug", "New", "Closed")
    with pytest.raises(BotError, match=r"^REVIEWBOT_AZURE_WORK_ITEM_STATES='Done' is not two"):
        azure_pipelines.work_items({"REVIEWBOT_AZURE_WORK_ITEM_STATES": "Done"})


@pytest.mark.parametrize("name, value", [
    ("SYSTEM_PULLREQUEST_PULLREQUESTID", "seven"), ("SYSTEM_PULLREQUEST_PULLREQUESTID", "0"),
    ("SYSTEM_PULLREQUEST_SOURCECOMMITID", "HEAD"),
    ("SYSTEM_PULLREQUEST_TARGETBRANCH", "main"),
    ("SYSTEM_PULLREQUEST_TARGETBRANCH", "refs/heads/a..b"),
    ("SYSTEM_COLLECTIONURI", "dev.azure.com/octo"), ("SYSTEM_TEAMPROJECT", "de/mo"),
    ("BUILD_REPOSITORY_ID", "demo"), ("BUILD_REPOSITORY_NAME", "x\nmain"),
    ("BUILD_REASON", "Pull Request"),
])
def test_a_malformed_variable_is_refused_by_name(name: str, value: str) -> None:
    with pytest.raises(BotError) as caught:
        from_env({**PULL, name: value})
    assert caught.value.code == Exit.USAGE and caught.value.message.startswith(f"{name}=")


@pytest.mark.parametrize("name", ["REVIEWBOT_PULL_REQUEST", "REVIEWBOT_COMMENT"])
def test_a_malformed_pointer_is_refused_by_name(name: str) -> None:
    with pytest.raises(BotError) as caught:
        from_env({**COMMAND, name: "1;2"})
    assert caught.value.code == Exit.USAGE and caught.value.message.startswith(f"{name}=")


def test_a_build_validation_run_without_its_pull_request_says_what_sets_it() -> None:
    with pytest.raises(BotError, match=r"SYSTEM_PULLREQUEST_SOURCECOMMITID is not set: .*build "
                                       r"validation"):
        from_env({k: v for k, v in PULL.items() if k != "SYSTEM_PULLREQUEST_SOURCECOMMITID"})


def test_tf_build_says_azure_pipelines() -> None:
    assert isinstance(environment.require(PULL), AzurePipelines)
    assert not azure_pipelines.active({"TF_BUILD": ""})


def test_the_token_is_never_optional_and_its_variable_is_named() -> None:
    with pytest.raises(BotError, match=r"SYSTEM_ACCESSTOKEN: \$\(System\.AccessToken\)"):
        AzurePipelines(PULL).token(None)
    assert AzurePipelines({**PULL, "SYSTEM_ACCESSTOKEN": "t"}).exposed_token() == (
        "SYSTEM_ACCESSTOKEN")
    assert AzurePipelines(PULL).exposed_token() is None


def test_the_maintainers_are_a_comma_separated_list() -> None:
    assert azure_pipelines.maintainers(
        {azure_pipelines.MAINTAINERS: " alice@octo.test, ,9e3c1b2a-0000 "}) == (
        "alice@octo.test", "9e3c1b2a-0000")
    assert azure_pipelines.maintainers({}) == ()


def test_git_goes_over_https_to_the_collections_host() -> None:
    assert azure_pipelines.server(PULL) == "https://dev.azure.com"


def test_annotations_and_warnings_are_logging_commands_escaped(
        capsys: pytest.CaptureFixture[str]) -> None:
    runner = AzurePipelines(PULL)
    runner.annotate([Annotation("src/a;b].py", 3, 3, Severity.ERROR, "ruff F401 (introduced)",
                                "`os` imported but unused\nsecond line 100%")])
    runner.warn("half\ndone")
    assert capsys.readouterr().out.splitlines() == [
        "##vso[task.logissue type=error;sourcepath=src/a%3Bb%5D.py;linenumber=3]"
        "ruff F401 (introduced): `os` imported but unused",
        "##vso[task.logissue type=warning]reviewbot: half%0Adone"]


def test_the_job_summary_is_uploaded_from_the_agents_temp_folder(
        tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    AzurePipelines({**PULL, "AGENT_TEMPDIRECTORY": str(tmp_path)}).job_summary("## hi")
    assert (tmp_path / "reviewbot-summary.md").read_text() == "## hi"
    assert capsys.readouterr().out == (
        f"##vso[task.uploadsummary]{tmp_path / 'reviewbot-summary.md'}\n")


def test_reviewbot_ci_exits_2_with_one_line_naming_the_variable(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("GITLAB_CI", "GITEA_ACTIONS", "GITHUB_ACTIONS", "GITHUB_EVENT_NAME",
                 "GITHUB_API_URL", "BITBUCKET_BUILD_NUMBER", "FORGEJO_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    for key, value in {**PULL, "SYSTEM_PULLREQUEST_PULLREQUESTID": "7;rm"}.items():
        monkeypatch.setenv(key, value)
    assert cli.main(["ci"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "SYSTEM_PULLREQUEST_PULLREQUESTID='7;rm' is not a positive" in err[0]


def test_the_example_gives_the_token_to_the_jobs_that_run_no_pull_requests_code() -> None:
    """examples/azure-pipelines.yml: the analyze jobs (the pull request's linters) hold no
    token and no signing key; their cache is restored, never saved; the token is mapped where
    the bot publishes, in jobs that check nothing out."""
    import yaml

    from tests.conftest import ROOT

    text = (ROOT / "examples" / "azure-pipelines.yml").read_text()
    jobs = {job["job"]: job for job in yaml.safe_load(text)["jobs"]}
    assert set(jobs) == {"analyze", "publish", "command_analyze", "command_publish", "warm",
                         "sweep"}

    def env(job: str) -> set[str]:
        return {name for step in jobs[job]["steps"] for name in (step.get("env") or {})}

    for name in ("analyze", "command_analyze"):
        assert env(name) == set() and "System.AccessToken" not in str(jobs[name])
    for name in ("publish", "command_publish"):
        assert env(name) == {azure_pipelines.TOKEN}
        assert jobs[name]["steps"][0] == {"checkout": "none"}
    assert env("warm") == {"REVIEWBOT_CACHE_SIGNING_SECRET"}
    for name in ("analyze", "command_analyze"):
        steps = jobs[name]["steps"]
        cached = [i for i, s in enumerate(steps) if s.get("task") == "Cache@2"]
        removed = [i for i, s in enumerate(steps)
                   if "rm -rf" in str(s.get("script")) and s.get("condition") == "always()"]
        ran = [i for i, s in enumerate(steps) if str(s.get("script")).startswith("reviewbot ")]
        assert cached and removed and ran and cached[0] < ran[0] < removed[0]
    assert "PullRequest" in jobs["analyze"]["condition"]
    assert "Manual" in jobs["command_analyze"]["condition"]
