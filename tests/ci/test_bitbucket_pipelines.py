"""Bitbucket Pipelines' variables as a `Trigger` (`bot.ci.bitbucket_pipelines`): each read by
its form, a malformed one refused with exit status 2 naming it."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot import cli
from bot.ci import bitbucket_pipelines, environment
from bot.ci.bitbucket_pipelines import BitbucketPipelines, parse
from bot.errors import BotError, Exit
from bot.forges.bitbucket import relay
from bot.model import Trigger

HEAD = "a" * 40
BASE = "b" * 12
STEP = {"BITBUCKET_BUILD_NUMBER": "12", "BITBUCKET_WORKSPACE": "octo",
        "BITBUCKET_REPO_SLUG": "demo", "BITBUCKET_COMMIT": HEAD,
        "BITBUCKET_CLONE_DIR": "/opt/atlassian/pipelines/agent/build"}
PULL = {**STEP, "BITBUCKET_PR_ID": "7", "BITBUCKET_BRANCH": "feature/x",
        "BITBUCKET_PR_DESTINATION_BRANCH": "main", "BITBUCKET_PR_DESTINATION_COMMIT": BASE}


def test_a_pull_request_pipeline_is_a_review_of_the_source_head() -> None:
    trigger = parse(PULL)
    assert (trigger.forge, trigger.kind, trigger.repository, trigger.number) == (
        "bitbucket", "review", "octo/demo", 7)
    assert (trigger.head_sha, trigger.base_sha, trigger.target_ref, trigger.head_ref) == (
        HEAD, BASE, "main", "feature/x")
    assert not trigger.fork


def test_the_relays_custom_pipeline_is_a_comment() -> None:
    trigger = parse({**STEP, "BITBUCKET_BRANCH": "main", "REVIEWBOT_PR_ID": "7",
                     "REVIEWBOT_COMMENT_ID": "4021", "REVIEWBOT_HEAD": "c" * 12})
    assert (trigger.kind, trigger.number, trigger.comment_id, trigger.head_sha) == (
        "comment", 7, 4021, "c" * 12)
    assert trigger.comment_body is None and trigger.actor is None  # the API's, not the step's


COMMANDS = {**STEP, "BITBUCKET_BRANCH": "main", "REVIEWBOT_PR_ID": "7",
            "REVIEWBOT_COMMENT_ID": "4021", "REVIEWBOT_HEAD": "c" * 12,
            "REVIEWBOT_COMMANDS": "/fix"}


def test_the_commands_analyze_step_reads_nothing_without_the_token() -> None:
    """No token in the step: the trigger is the variables' (no request could be sent), with
    the branch the pipeline runs on and the relay's command lines as what is reviewed ahead;
    nobody is named as its author, so nothing acts on it."""
    trigger = BitbucketPipelines(COMMANDS).trigger()
    assert (trigger.kind, trigger.number, trigger.head_sha, trigger.target_ref) == (
        "comment", 7, "c" * 12, "main")
    assert trigger.comment_body == "/fix" and trigger.actor is None
    assert BitbucketPipelines(COMMANDS).in_change_event()


def test_the_commands_hint_holds_no_control_character() -> None:
    with pytest.raises(BotError, match="REVIEWBOT_COMMANDS holds a control character") as caught:
        BitbucketPipelines({**COMMANDS, "REVIEWBOT_COMMANDS": "/fix\r/apply"}).trigger()
    assert caught.value.code == Exit.USAGE
    both = BitbucketPipelines({**COMMANDS, "REVIEWBOT_COMMANDS": "/fix\n/apply"}).trigger()
    assert both.comment_body == "/fix\n/apply"


@pytest.mark.parametrize("missing, says", [("REVIEWBOT_HEAD", "REVIEWBOT_HEAD is not set"),
                                           ("BITBUCKET_BRANCH", "BITBUCKET_BRANCH is not set")])
def test_the_commands_analyze_step_needs_the_head_and_the_branch(missing: str, says: str) -> None:
    runner = BitbucketPipelines({k: v for k, v in COMMANDS.items() if k != missing})
    with pytest.raises(BotError, match=says) as caught:
        runner.analysed_range(runner.trigger())
    assert caught.value.code == Exit.USAGE


def test_the_relay_copies_the_command_lines_alone_and_caps_them() -> None:
    said = "Thanks!\n  /fix  \nmore prose\n/apply " + "a" * 300 + "\n" + "/help\n" * 300
    hook = {"repository": {"full_name": "octo/demo"},
            "comment": {"id": 5, "content": {"raw": said}},
            "pullrequest": {"id": 7, "source": {"commit": {"hash": "a" * 12}},
                            "destination": {"branch": {"name": "main"}}}}
    body = relay.request(hook).body
    assert body is not None
    [hint] = [v["value"] for v in body["variables"] if v["key"] == "REVIEWBOT_COMMANDS"]
    lines = hint.split("\n")
    assert lines[0] == "/fix" and lines[1] == "/apply " + "a" * 193  # 200 characters a line
    assert len(hint) == relay.COMMANDS and all(line.startswith("/") for line in lines[:-1])


def test_a_branch_pipeline_sweeps_and_a_tag_needs_nothing() -> None:
    swept = parse({**STEP, "BITBUCKET_BRANCH": "main"})
    assert (swept.kind, swept.target_ref, swept.head_sha) == ("sweep", "main", HEAD)
    tagged = parse({**STEP, "BITBUCKET_TAG": "v1.0"})
    assert tagged.kind == "ignored" and "tag" in tagged.reason


@pytest.mark.parametrize("name, value", [
    ("BITBUCKET_PR_ID", "seven"), ("BITBUCKET_PR_ID", "0"), ("BITBUCKET_COMMIT", "HEAD"),
    ("BITBUCKET_PR_DESTINATION_COMMIT", "main"), ("BITBUCKET_PR_DESTINATION_BRANCH", "a..b"),
    ("BITBUCKET_WORKSPACE", "octo/demo"), ("BITBUCKET_REPO_SLUG", "de mo"),
    ("BITBUCKET_BRANCH", "x\nmain"), ("REVIEWBOT_COMMENT_ID", "4021;"),
])
def test_a_malformed_variable_is_refused_by_name(name: str, value: str) -> None:
    with pytest.raises(BotError) as caught:
        parse({**PULL, name: value} if name != "REVIEWBOT_COMMENT_ID" else
              {**STEP, "REVIEWBOT_PR_ID": "7", name: value})
    assert caught.value.code == Exit.USAGE and caught.value.message.startswith(f"{name}=")


def test_a_pull_request_pipeline_without_its_destination_says_what_sets_it() -> None:
    with pytest.raises(BotError, match=r"BITBUCKET_PR_DESTINATION_COMMIT is not set: .*"
                                       r"pull-requests:"):
        parse({k: v for k, v in PULL.items() if k != "BITBUCKET_PR_DESTINATION_COMMIT"})


def test_the_clone_dir_must_be_absolute() -> None:
    with pytest.raises(BotError, match="BITBUCKET_CLONE_DIR='build' is not an absolute path"):
        BitbucketPipelines({**PULL, "BITBUCKET_CLONE_DIR": "build"}).checkout(None)


def test_the_build_number_says_pipelines_and_a_malformed_one_is_refused() -> None:
    assert isinstance(environment.require(PULL), BitbucketPipelines)
    with pytest.raises(BotError, match="BITBUCKET_BUILD_NUMBER='twelve'"):
        environment.require({**PULL, "BITBUCKET_BUILD_NUMBER": "twelve"})


def test_the_api_root_is_read_by_its_form() -> None:
    assert bitbucket_pipelines.api_url(PULL) == "https://api.bitbucket.org/2.0"
    with pytest.raises(BotError, match=r"REVIEWBOT_BITBUCKET_API='api\.bitbucket\.org'"):
        bitbucket_pipelines.api_url({**PULL, "REVIEWBOT_BITBUCKET_API": "api.bitbucket.org"})


def test_git_goes_over_https_to_the_origins_host() -> None:
    runner = BitbucketPipelines({**PULL, "BITBUCKET_GIT_HTTP_ORIGIN":
                                 "http://bitbucket.org/octo/demo"})
    assert runner.clone_url("octo/demo") == "https://bitbucket.org/octo/demo.git"


def test_a_write_token_in_reach_is_named() -> None:
    assert BitbucketPipelines(PULL).exposed_token() is None
    runner = BitbucketPipelines({**PULL, "REVIEWBOT_BITBUCKET_TOKEN": "t"})
    assert runner.exposed_token() == "REVIEWBOT_BITBUCKET_TOKEN"


@pytest.mark.parametrize("name, value", [("BITBUCKET_PR_ID", "x"), ("BITBUCKET_COMMIT", "zz")])
def test_reviewbot_ci_exits_2_with_one_line_naming_the_variable(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str,
        value: str) -> None:
    for key in ("GITLAB_CI", "GITEA_ACTIONS", "FORGEJO_ACTIONS", "GITHUB_ACTIONS",
                "GITHUB_EVENT_NAME"):
        monkeypatch.delenv(key, raising=False)
    for key, given in {**PULL, name: value}.items():
        monkeypatch.setenv(key, given)
    assert cli.main(["ci"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{name}={value!r}" in err


def test_no_token_is_a_usage_error_naming_the_variable() -> None:
    runner = BitbucketPipelines(PULL)
    with pytest.raises(BotError, match="REVIEWBOT_BITBUCKET_TOKEN") as caught:
        runner.connect(Trigger("bitbucket", "pull-requests", "review", repository="octo/demo",
                               number=7), None)
    assert caught.value.code == Exit.USAGE


# -- the example ---------------------------------------------------------------------------

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "bitbucket-pipelines.yml"
CHECK = Path(sys.executable).parent / "check-jsonschema"


def validate(path: Path) -> subprocess.CompletedProcess[str]:
    """Against Bitbucket's published schema of bitbucket-pipelines.yml (SchemaStore's, as
    check-jsonschema vendors it)."""
    return subprocess.run([str(CHECK), "--builtin-schema", "vendor.bitbucket-pipelines",
                           str(path)], capture_output=True, text=True)


def test_the_example_is_valid_and_the_check_can_fail(tmp_path: Path) -> None:
    assert validate(EXAMPLE).returncode == 0, validate(EXAMPLE).stdout
    broken = tmp_path / "bitbucket-pipelines.yml"
    broken.write_text(EXAMPLE.read_text().replace("enabled: false", "enabled: nope", 1))
    assert validate(broken).returncode != 0


def steps(doc: dict[str, Any], *where: str) -> list[dict[str, Any]]:
    node: Any = doc["pipelines"]
    for key in where:
        node = node[key]
    return [item["step"] for item in node if "step" in item]


def test_the_example_runs_the_pull_requests_code_without_the_token() -> None:
    doc = yaml.safe_load(EXAMPLE.read_text())
    analyze, publish = steps(doc, "pull-requests", "**")
    assert "deployment" not in analyze and "reviewbot analyze --out reviewbot-analysis.json" in \
        analyze["script"]
    # restore-only: the folder is gone before Pipelines would upload it
    assert analyze["caches"] == ["reviewbot"] and any(
        "rm -rf" in line and ".git/reviewbot-cache" in line for line in analyze["after-script"])
    assert publish["deployment"] == "reviewbot" and publish["clone"] == {"enabled": False}
    assert publish["script"] == ["reviewbot publish reviewbot-analysis.json"]
    assert doc["definitions"]["caches"]["reviewbot"] == ".git/reviewbot-cache/v3"
    [warm] = steps(doc, "branches", "main")
    assert "reviewbot warm" in warm["script"] and warm["caches"] == ["reviewbot"]
    assert warm["deployment"] != "reviewbot"  # the signing secret, not the token


def test_the_examples_custom_pipeline_takes_what_the_relay_sets() -> None:
    doc = yaml.safe_load(EXAMPLE.read_text())
    custom = doc["pipelines"]["custom"]["reviewbot"]
    declared = {v["name"] for item in custom if "variables" in item for v in item["variables"]}
    hook = {"repository": {"full_name": "octo/demo"},
            "comment": {"id": 5, "content": {"raw": "/help"}},
            "pullrequest": {"id": 7, "source": {"commit": {"hash": "a" * 12}},
                            "destination": {"branch": {"name": "main"}}}}
    body = relay.request(hook).body
    assert body is not None and body["target"]["selector"]["pattern"] == "reviewbot"
    assert declared == {v["key"] for v in body["variables"]}
    # The commands run the pull request's tools: analyze without the token, publish with it.
    analyze, publish = steps(doc, "custom", "reviewbot")
    assert "deployment" not in analyze and analyze["script"][-1] == \
        "reviewbot analyze --out reviewbot-analysis.json"
    assert analyze["artifacts"] == ["reviewbot-analysis.json"]
    assert publish["deployment"] == "reviewbot" and publish["clone"] == {"enabled": False}
    assert publish["script"] == ["reviewbot publish reviewbot-analysis.json"]


def test_every_reviewbot_line_of_the_example_parses() -> None:
    doc = yaml.safe_load(EXAMPLE.read_text())
    lines = [line for key in ("pull-requests", "custom", "branches")
             for group in doc["pipelines"][key].values() for item in group if "step" in item
             for line in item["step"]["script"] if line.startswith("reviewbot ")]
    assert len(lines) == 6
    for line in lines:
        args = shlex.split(line)[1:]
        cli.build_parser(args[0]).parse_args(args)
