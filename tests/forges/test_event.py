"""Event parsing on the real payloads of @octokit/webhooks-examples."""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bot.errors import BotError, Exit
from bot.forges.event import load, parse
from tests.forges.validate import node_modules


@cache
def examples() -> dict[str, list[dict[str, Any]]]:
    data = json.loads((node_modules() / "@octokit/webhooks-examples/api.github.com/index.json")
                      .read_text())
    return {event["name"]: event["examples"] for event in data}


def test_every_pull_request_example_parses() -> None:
    payloads = examples()["pull_request"]
    assert len(payloads) > 20
    for payload in payloads:
        event = parse("pull_request", payload)
        pr = payload["pull_request"]
        assert event.number == pr["number"] == payload["number"]
        assert event.head_sha == pr["head"]["sha"] and event.base_sha == pr["base"]["sha"]
        assert event.repository == payload["repository"]["full_name"]
        assert event.state == pr["state"]
        assert not event.fork
    closed = [parse("pull_request", p) for p in payloads if p["action"] == "closed"]
    assert closed and all(e.state == "closed" for e in closed)


def test_fork_is_detected() -> None:
    payload = copy.deepcopy(examples()["pull_request"][0])
    payload["pull_request"]["head"]["repo"]["full_name"] = "someone/fork"
    assert parse("pull_request", payload).fork
    payload["pull_request"]["head"]["repo"] = None  # the fork was deleted
    assert parse("pull_request", payload).fork


@pytest.mark.parametrize("name", ["push", "issue_comment", "workflow_run", "pull_request_target"])
def test_other_events_are_refused_with_a_hint(name: str) -> None:
    payload = (examples().get(name) or [{}])[0]
    with pytest.raises(BotError) as info:
        parse(name, payload)
    assert info.value.code == Exit.USAGE
    assert "on: pull_request" in info.value.message


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


def test_load_reports_unreadable_files(tmp_path: Path) -> None:
    bad = tmp_path / "event.json"
    bad.write_text("{not json")
    for name, path, expected in [(None, str(bad), "GITHUB_EVENT_NAME"),
                                 ("pull_request", None, "GITHUB_EVENT_PATH"),
                                 ("pull_request", str(tmp_path / "nope.json"), "cannot read"),
                                 ("pull_request", str(bad), "not JSON")]:
        with pytest.raises(BotError) as info:
            load(name, path)
        assert expected in info.value.message and info.value.code == Exit.USAGE
