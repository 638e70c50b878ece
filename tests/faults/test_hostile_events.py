"""Hostile events: every field of the real payloads (GitHub's from @octokit/webhooks-examples,
GitLab's webhooks as its documentation shows them, the GitLab pipeline's variables) removed or
given a value of another type, one at a time. Each is read as a trigger or refused with exit 2
and a message naming the field; nothing else (no traceback, no exit 70)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from bot.ci import gitea_actions, github_actions, gitlab_ci
from bot.cli import main
from bot.errors import BotError, Exit
from tests.ci import gitlab_hooks
from tests.ci.test_github_actions import examples, pr_comment
from tests.ci.test_gitlab_ci import MR
from tests.faults.mutate import REMOVED, Mutation, get, mutations, named

ALICE = {"id": 7, "username": "alice", "name": "Alice"}
HEAD = "a" * 40
# Fewer odd values than mutate.WRONG_TYPES: one of each JSON type and the odd ones that
# matter to a reader (an empty string, a negative number), over every field of every payload.
VALUES: tuple[Any, ...] = (None, True, -1, 1.5, "", "x", [], [1], {})


def read_as(reading: object, base: object, value: Any) -> bool:
    """Whether an accepted field of `value` is read as itself: the reading is the unchanged
    document's (a field the reader does not use), or one of its fields is `value` exactly (of
    its type: True is not 1), or an event that needs nothing says so naming the string."""
    if reading == base:
        return True
    if not dataclasses.is_dataclass(reading):
        return False
    found = dataclasses.asdict(reading)  # type: ignore[arg-type]
    if any(type(v) is type(value) and v == value for v in found.values()):
        return True
    return (found.get("kind") == "ignored" and isinstance(value, str) and value != ""
            and value in str(found.get("reason")))


def refusals(documents: Iterable[Any], read: Callable[[Any], object],
             form: Callable[[str], str] = "`{}`".format) -> tuple[int, list[str]]:
    """How many mutations were tried, and the ones that broke the promise: a crash, another
    exit status, a refusal that does not name the field, or a field that is present but
    malformed (of another type, or an empty string) read as something else than itself (as
    absent, as a default). A field removed or null is absent, which the event may well leave
    it; another value of its type is a well-formed event."""
    tried, broken = 0, []
    for document in documents:
        base = read(document)
        for m in mutations(document, values=VALUES):
            tried += 1
            try:
                reading = read(m.document)
            except BotError as exc:
                if exc.code != Exit.USAGE or not named(exc.message, m.path, form):
                    broken.append(f"{m}: exit {int(exc.code)}: {exc.message}")
                continue
            except Exception as exc:  # any other exception is the bug sought
                broken.append(f"{m}: {type(exc).__name__}: {exc}")
                continue
            if m.value in (REMOVED, None) or (type(m.value) is type(get(document, m.path))
                                              and m.value != ""):
                continue  # absent, or another value of the field's type: either may be read
            if not read_as(reading, base, m.value):
                broken.append(f"{m}: read as {reading}")
    return tried, broken


def one_per_action(event: str) -> list[dict[str, Any]]:
    """The first example of each action (the examples of one action differ in values only)."""
    return list({p.get("action"): p for p in reversed(examples()[event])}.values())


def test_every_field_of_the_pull_request_and_comment_events() -> None:
    documents = [(name, p) for name in ("pull_request", "issue_comment")
                 for p in one_per_action(name)]
    documents += [("issue_comment", pr_comment()), ("issue_comment", pr_comment("edited"))]
    tried = 0
    for name, payload in documents:
        count, broken = refusals([payload], lambda d, name=name: github_actions.parse(name, d))
        assert broken == [], f"{name}: " + "\n".join(broken[:20])
        tried += count
    assert tried > 50_000


def test_every_field_of_every_other_event_is_ignored_or_refused() -> None:
    names = sorted(set(examples()) - {"pull_request", "issue_comment", "pull_request_target"})
    tried = 0
    for name in names:
        count, broken = refusals(examples()[name][:1],
                                 lambda d, name=name: github_actions.parse(name, d))
        assert broken == [], f"{name}: " + "\n".join(broken[:20])
        tried += count
    assert tried > 50_000


def test_every_field_of_the_workflow_run_event_publish_checks(
        monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": "event.json"}
    tried = 0
    for payload in examples()["workflow_run"][:2]:
        head, prs = payload["workflow_run"]["head_sha"], payload["workflow_run"]["pull_requests"]
        number = prs[0]["number"] if prs else 1

        def check(document: Any, head: str = head, number: int = number) -> None:
            # The payload as its file would give it, without writing thousands of files.
            monkeypatch.setattr(github_actions.payload_file, "read",
                                lambda path, name: document)
            github_actions.check_run_event(env, head, number)

        count, broken = refusals([payload], check)
        assert broken == [], "\n".join(broken[:20])
        tried += count
    assert tried > 5_000


def gitlab_webhooks() -> list[dict[str, Any]]:
    return [gitlab_hooks.note_on_merge_request(ALICE, 5, "/review", HEAD),
            gitlab_hooks.merge_request_update(ALICE, ["bug"], ["bug", "reviewbot:apply"], HEAD),
            gitlab_hooks.note_on_issue(ALICE)]


def test_every_field_of_the_gitlab_webhooks() -> None:
    tried, broken = refusals(gitlab_webhooks(), gitlab_ci.parse_hook)
    assert broken == [], "\n".join(broken[:20])
    assert tried > 3_000


# What a GitLab merge request pipeline's variables are read as: the trigger, the API and
# project, the checkout and the publishing token (REVIEWBOT_GITLAB_TOKEN beside CI_JOB_TOKEN).
BASE: dict[str, object] = {
    "gitlab": True, "kind": "review", "event": "merge_request_event", "repository": "group/demo",
    "number": 3, "base": MR["CI_MERGE_REQUEST_DIFF_BASE_SHA"], "head": "2" * 40,
    "target": "main", "api": ("https://gitlab.example/api/v4", "42"),
    "checkout": Path("/builds/demo"), "token": "publish-secret"}
NOT_GITLAB = {"gitlab": False}
IGNORED = {"kind": "ignored", "number": None, "base": None, "head": None, "target": None}
VARIABLE_VALUES = (None, "", "x", "-1", "0" * 39, "\n")  # None: the variable is not set
# Every (variable, value) read, and what it is read as; every other one is refused. An empty
# variable is one not set (GitLab gives an undefined variable as ""); any other value that is
# not the variable's form is refused, never read as absent.
ACCEPTED: dict[tuple[str, str | None], dict[str, object]] = {
    ("GITLAB_CI", None): NOT_GITLAB,
    ("GITLAB_CI", ""): NOT_GITLAB,
    # A source GitLab may add later is named and needs nothing; a value of no source's form
    # ("-1", "\n") is refused.
    ("CI_PIPELINE_SOURCE", "x"): {**BASE, **IGNORED, "event": "x"},
    ("CI_SERVER_URL", None): BASE,  # CI_API_V4_URL is the API
    ("CI_SERVER_URL", ""): BASE,
    ("CI_API_V4_URL", None): BASE,  # CI_SERVER_URL/api/v4
    ("CI_API_V4_URL", ""): BASE,
    ("CI_PROJECT_DIR", None): {**BASE, "checkout": None},  # the current folder
    ("CI_PROJECT_DIR", ""): {**BASE, "checkout": None},
    ("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "x"): {**BASE, "target": "x"},
    ("CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "0" * 39): {**BASE, "target": "0" * 39},
    **{("CI_JOB_TOKEN", value): BASE for value in VARIABLE_VALUES},  # only compared
}


def gitlab_reading(env: dict[str, str]) -> dict[str, object]:
    if not gitlab_ci.active(env):
        return NOT_GITLAB
    trigger = gitlab_ci.from_env(env)
    return {"gitlab": True, "kind": trigger.kind, "event": trigger.event,
            "repository": trigger.repository, "number": trigger.number,
            "base": trigger.base_sha, "head": trigger.head_sha, "target": trigger.target_ref,
            "api": gitlab_ci.api(env), "checkout": gitlab_ci.project_dir(env),
            "token": gitlab_ci.token({**env, "REVIEWBOT_GITLAB_TOKEN": "publish-secret"})}


def test_the_merge_request_pipeline_read_whole() -> None:
    assert gitlab_reading(MR) == BASE


@pytest.mark.parametrize("name", sorted(MR))
@pytest.mark.parametrize("value", VARIABLE_VALUES, ids=repr)
def test_every_variable_of_a_gitlab_merge_request_pipeline(name: str, value: str | None) -> None:
    """Each variable removed, emptied or given a value of another form: read exactly as
    ACCEPTED says, or refused with exit 2 naming it."""
    env = {k: v for k, v in MR.items() if k != name}
    if value is not None:
        env[name] = value
    expected = ACCEPTED.get((name, value))
    if expected is not None:
        assert gitlab_reading(env) == expected
        return
    with pytest.raises(BotError) as caught:
        gitlab_reading(env)
    assert caught.value.code == Exit.USAGE and name in caught.value.message, caught.value.message
    assert "\n" not in caught.value.message, caught.value.message


@pytest.mark.parametrize("name", ["CI_PIPELINE_SOURCE", "CI_PROJECT_PATH"])
def test_a_gitlab_job_that_does_not_say_why_it_runs_exits_2(
        name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """GITLAB_CI=true without the variables every pipeline has: a misconfigured job (a
    variable cleared, a runner of another CI), which must not go green as "nothing to do"."""
    for key, value in MR.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv(name)
    assert main(["ci"]) == 2
    err = capsys.readouterr().err
    assert name in err and err.count("\n") == 1, err


SWEEP = {"GITHUB_REPOSITORY": "octo/demo", "GITHUB_REF": "refs/heads/main",
         "GITHUB_SHA": "3" * 40, "GITHUB_ACTOR": "octocat"}
SWEPT = {"repository": "octo/demo", "target": "main", "head": "3" * 40, "actor": "octocat"}
# Read, and read as what; every other (variable, value) is refused.
SWEEP_ACCEPTED: dict[tuple[str, str | None], dict[str, object]] = {
    **{(name, value): {**SWEPT, field: None} for value in (None, "")
       for name, field in (("GITHUB_REPOSITORY", "repository"), ("GITHUB_REF", "target"),
                           ("GITHUB_SHA", "head"), ("GITHUB_ACTOR", "actor"))},
    ("GITHUB_REF", "x"): {**SWEPT, "target": "x"},
    ("GITHUB_REF", "0" * 39): {**SWEPT, "target": "0" * 39},
    ("GITHUB_ACTOR", "x"): {**SWEPT, "actor": "x"},
    ("GITHUB_ACTOR", "0" * 39): {**SWEPT, "actor": "0" * 39},
}


@pytest.mark.parametrize("ci", ["github", "gitea"])
@pytest.mark.parametrize("name", sorted(SWEEP))
@pytest.mark.parametrize("value", VARIABLE_VALUES, ids=repr)
def test_every_variable_of_a_scheduled_run(ci: str, name: str, value: str | None) -> None:
    """GitHub's and Gitea's runners name the swept branch in variables, not in the payload."""
    env = {k: v for k, v in SWEEP.items() if k != name}
    if value is not None:
        env[name] = value
    parse = github_actions.parse if ci == "github" else gitea_actions.parse
    expected = SWEEP_ACCEPTED.get((name, value))
    if expected is None:
        with pytest.raises(BotError) as caught:
            parse("schedule", {}, env)
        assert caught.value.code == Exit.USAGE and name in caught.value.message
        assert "\n" not in caught.value.message, caught.value.message
        return
    trigger = parse("schedule", {}, env)
    assert {"repository": trigger.repository, "target": trigger.target_ref,
            "head": trigger.head_sha, "actor": trigger.actor} == expected


@pytest.mark.parametrize("name", ["GITLAB_CI", "GITEA_ACTIONS", "FORGEJO_ACTIONS"])
@pytest.mark.parametrize("value", (*VARIABLE_VALUES, "true", "false"), ids=repr)
def test_the_variables_that_name_the_ci(name: str, value: str | None) -> None:
    """`true` says which CI this is; not set, empty or `false`, it is not; anything else is
    refused, not read as another CI."""
    active = gitlab_ci.active if name == "GITLAB_CI" else gitea_actions.active
    env = {} if value is None else {name: value}
    if value in (None, "", "true", "false"):
        assert active(env) is (value == "true")
        return
    with pytest.raises(BotError) as caught:
        active(env)
    assert caught.value.code == Exit.USAGE and name in caught.value.message


def cases(documents: Iterable[Any]) -> list[Mutation]:
    """The outer fields of each payload removed or made a string, for the end-to-end runs."""
    return [m for document in documents for m in mutations(document, values=("x",))
            if len(m.path) <= 3]


def refused_by(read: Callable[[Any], object], candidates: list[Mutation], limit: int
               ) -> list[Mutation]:
    out = []
    for m in candidates:
        try:
            read(m.document)
        except BotError:
            out.append(m)
    return out[:: max(1, len(out) // limit)][:limit]  # spread over the payload


GITHUB_REFUSED = refused_by(lambda d: github_actions.parse("pull_request", d),
                            cases([examples()["pull_request"][0]]), 12)
GITLAB_REFUSED = refused_by(gitlab_ci.parse_hook, cases(gitlab_webhooks()[:2]), 12)


@pytest.mark.parametrize("mutation", GITHUB_REFUSED, ids=str)
def test_ci_exits_2_naming_the_field_of_a_github_event(
        mutation: Mutation, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps(mutation.document))
    for name in ("GITLAB_CI", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    assert main(["ci"]) == 2
    err = capsys.readouterr().err
    assert named(err, mutation.path) and err.count("\n") == 1, err


@pytest.mark.parametrize("mutation", GITLAB_REFUSED, ids=str)
def test_ci_exits_2_naming_the_field_of_a_gitlab_webhook(
        mutation: Mutation, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    hook = tmp_path / "payload.json"
    hook.write_text(json.dumps(mutation.document))
    for name, value in {**MR, "CI_PIPELINE_SOURCE": "trigger", "TRIGGER_PAYLOAD": str(hook)}.items():
        monkeypatch.setenv(name, value)
    assert main(["ci"]) == 2
    err = capsys.readouterr().err
    assert named(err, mutation.path) and err.count("\n") == 1, err
