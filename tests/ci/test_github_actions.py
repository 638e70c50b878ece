"""GitHub Actions triggers from the real payloads of @octokit/webhooks-examples."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bot.ci.github_actions import from_env, parse, unhandled
from bot.errors import BotError, Exit
from tests.forges.validate import node_modules


@cache
def examples() -> dict[str, list[dict[str, Any]]]:
    data = json.loads((node_modules() / "@octokit/webhooks-examples/api.github.com/index.json")
                      .read_text())
    return {event["name"]: event["examples"] for event in data}


def opened_pull_request(base: str, head: str, **pr: Any) -> dict[str, Any]:
    """The examples' `opened` pull_request event as #7 of octo/demo, from `base` to `head`."""
    payload = copy.deepcopy(next(p for p in examples()["pull_request"] if p["action"] == "opened"))
    payload["pull_request"].update(number=7, **pr)
    payload["pull_request"]["head"].update(sha=head)
    payload["pull_request"]["base"].update(sha=base)
    for side in ("head", "base"):
        payload["pull_request"][side]["repo"]["full_name"] = "octo/demo"
    return payload


def pr_comment(action: str = "created") -> dict[str, Any]:
    """An issue_comment on a pull request (the examples have none: their issues have no
    `pull_request`, which is what GitHub adds for a PR's conversation)."""
    payload = copy.deepcopy(next(p for p in examples()["issue_comment"] if p["action"] == action))
    payload["issue"]["pull_request"] = {"url": "https://api.github.com/repos/o/r/pulls/1"}
    return payload


def test_every_pull_request_example_parses() -> None:
    payloads = examples()["pull_request"]
    assert len(payloads) > 20
    kinds = set()
    for payload in payloads:
        trigger = parse("pull_request", payload)
        kinds.add(trigger.kind)
        if trigger.kind == "ignored":
            assert payload["action"] not in ("opened", "synchronize", "reopened",
                                             "ready_for_review", "labeled")
            assert payload["action"] in trigger.reason
            continue
        pr = payload["pull_request"]
        assert trigger.number == pr["number"] == payload["number"]
        assert trigger.head_sha == pr["head"]["sha"] and trigger.base_sha == pr["base"]["sha"]
        assert trigger.repository == payload["repository"]["full_name"]
        assert trigger.target_ref == pr["base"]["ref"] and trigger.open == (pr["state"] == "open")
        assert trigger.actor == payload["sender"]["login"] and not trigger.fork
    assert kinds == {"review", "label", "ignored"}
    labeled = [parse("pull_request", p) for p in payloads if p["action"] == "labeled"]
    assert all(t.kind == "label" and t.label for t in labeled)


def test_fork_is_detected() -> None:
    payload = copy.deepcopy(examples()["pull_request"][0])
    payload["pull_request"]["head"]["repo"]["full_name"] = "someone/fork"
    assert parse("pull_request", payload).fork
    payload["pull_request"]["head"]["repo"] = None  # the fork was deleted
    assert parse("pull_request", payload).fork


def test_comments_on_pull_requests_only_new_ones() -> None:
    trigger = parse("issue_comment", pr_comment())
    comment = pr_comment()["comment"]
    assert trigger.kind == "comment" and trigger.comment_id == comment["id"]
    assert trigger.comment_body == comment["body"] and trigger.head_sha is None
    assert trigger.actor == comment["user"]["login"] and not trigger.actor_is_bot
    assert trigger.comment_created_at == comment["created_at"]
    for payload in (pr_comment("edited"), pr_comment("deleted"), examples()["issue_comment"][0]):
        assert parse("issue_comment", payload).kind == "ignored"
    bot = pr_comment()
    bot["comment"]["user"].update(login="github-actions[bot]", type="Bot")
    assert parse("issue_comment", bot).actor_is_bot


def test_schedules_are_sweeps() -> None:
    env = {"GITHUB_REPOSITORY": "o/r", "GITHUB_REF": "refs/heads/main", "GITHUB_SHA": "a" * 40}
    for name in ("schedule", "workflow_dispatch"):
        trigger = parse(name, (examples().get(name) or [{}])[0], env)
        assert trigger.kind == "sweep" and trigger.target_ref == "main" and trigger.repository == "o/r"


@pytest.mark.parametrize("name", ["push", "workflow_run", "check_run", "release"])
def test_other_events_are_ignored_with_what_is_handled(name: str) -> None:
    payload = (examples().get(name) or [{}])[0]
    trigger = parse(name, payload)
    assert trigger.kind == "ignored"
    line = unhandled(trigger, ("review",))
    assert name in line and "pull_request (opened, synchronize" in line and "\n" not in line


def test_pull_request_target_is_refused() -> None:
    with pytest.raises(BotError) as info:
        parse("pull_request_target", examples()["pull_request"][0])
    assert info.value.code == Exit.USAGE and "write token" in info.value.message


@pytest.mark.parametrize("mutate,expected", [
    (lambda p: p.pop("pull_request"), "`pull_request` is missing"),
    (lambda p: p["pull_request"]["head"].update(sha="HEAD"), "pull_request.head.sha"),
    (lambda p: p["pull_request"].update(number="7"), "pull_request.number"),
    (lambda p: p["pull_request"]["base"].pop("repo"), "pull_request.base.repo"),
    (lambda p: p["pull_request"].update(head=[]), "pull_request.head"),
])
def test_malformed_payloads(mutate: Any, expected: str) -> None:
    payload = copy.deepcopy(examples()["pull_request"][0])
    mutate(payload)
    with pytest.raises(BotError) as info:
        parse("pull_request", payload)
    assert info.value.code == Exit.USAGE and expected in info.value.message


def test_malformed_comment_payload() -> None:
    payload = pr_comment()
    payload["comment"]["id"] = "x"
    with pytest.raises(BotError, match=r"comment\.id"):
        parse("issue_comment", payload)


def test_unreadable_event_files(tmp_path: Path) -> None:
    bad = tmp_path / "event.json"
    bad.write_text("{not json")
    for name, path, expected in [(None, str(bad), "GITHUB_EVENT_NAME"),
                                 ("pull_request", None, "GITHUB_EVENT_PATH"),
                                 ("pull_request", str(tmp_path / "nope.json"), "cannot read"),
                                 ("pull_request", str(bad), "not JSON")]:
        env = {k: v for k, v in (("GITHUB_EVENT_NAME", name), ("GITHUB_EVENT_PATH", path)) if v}
        with pytest.raises(BotError) as info:
            from_env(env)
        assert expected in info.value.message and info.value.code == Exit.USAGE
