"""GitHub's dry run: the real pull request side with its writes recorded at PyGithub's one
way out (and at GraphQL's mutations): what it records is what a run then sends."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from bot.forges.base import Annotation, Draft, StatusReport
from bot.forges.github.change import GitHubChange
from bot.forges.github.repository import GitHubRepository
from bot.model import Severity
from bot.render.markdown import SUMMARY_MARKER, marker
from tests.forges.fakegithub import FakeGitHub

BODY = "finding\n" + marker("k1", "0")


def publish(forge: GitHubChange) -> None:
    state = forge.load()
    forge.post(state.head, "review", [Draft("k1", "a.py", BODY, line=3),
                                     Draft("k2", "a.py", "file\n" + marker("k2", "0"))])
    forge.summary(state, f"{SUMMARY_MARKER}\nsummary")
    annotations = tuple(Annotation("a.py", n, n, Severity.ERROR, "ruff F401", "unused")
                        for n in range(1, 53))  # two requests: 50, then 2
    forge.check(StatusReport("reviewbot", state.head, "failure", "failing", "", annotations))


def sent(fake: FakeGitHub) -> list[tuple[str, str, Any]]:
    return [(c.method, c.path, c.body) for c in fake.calls if c.write]


def test_a_dry_run_records_what_a_run_then_sends(fake: FakeGitHub,
                                                  forge_for: Callable[[], GitHubChange]) -> None:
    dry = forge_for()
    recorded = dry.api.record_writes(head=fake.s.head, reads=True).requests
    publish(dry)
    assert sent(fake) == [] and fake.calls  # it read, and wrote nothing
    fake.reset_calls()
    publish(forge_for())
    real = sent(fake)
    assert [(r["method"], r["path"]) for r in recorded][:3] == [(m, p) for m, p, _ in real][:3]
    assert [r["body"] for r in recorded][:3] == [b for _, _, b in real][:3]
    # The check run's annotations go on in a PATCH to the run a dry run has not made.
    assert recorded[3]["path"] == "/repos/octo/demo/check-runs"
    assert recorded[4]["method"] == "PATCH" and recorded[4]["path"].endswith(
        "/check-runs/{check_run_id}")
    assert len(recorded[4]["body"]["output"]["annotations"]) == 2


def test_without_a_token_a_dry_run_reads_nothing(fake: FakeGitHub,
                                                 forge_for: Callable[[], GitHubChange]) -> None:
    dry = forge_for()
    recorded = dry.api.record_writes(head=fake.s.head, reads=False).requests
    state = dry.load()
    assert (state.head, state.open, state.comments, state.summary_id) == (fake.s.head, True,
                                                                        (), None)
    assert dry.diff_lines() == {}
    publish(dry)
    assert fake.calls == []  # nothing sent, reads neither
    assert [(r["method"], r["path"]) for r in recorded][:3] == [
        ("POST", "/repos/octo/demo/pulls/7/reviews"), ("POST", "/repos/octo/demo/pulls/7/comments"),
        ("POST", "/repos/octo/demo/issues/7/comments")]


def repository_writes(repository: GitHubRepository) -> None:
    repository.note(7, "<!-- q -->", "<!-- q --> the queue's word")
    repository.reply(7, "done")
    repository.add_label(7, "reviewbot:apply")
    made = repository.create_issue("regressions", "<!-- m -->", ["sweep"])
    repository.update_issue(made.number, open=False)


def test_the_repository_side_records_in_the_same_list(fake: FakeGitHub,
                                                      forge_for: Callable[[], GitHubChange]
                                                      ) -> None:
    """One recording for both sides: the repository's notes, replies, labels and issues are
    entries of the list the pull request's writes go to, as a run then sends them."""
    api = forge_for().api
    recorded = api.record_writes(head=fake.s.head, reads=True).requests
    repository_writes(GitHubRepository(api.settings, api=api))
    assert sent(fake) == []
    fake.reset_calls()
    real = forge_for().api
    repository_writes(GitHubRepository(real.settings, api=real))
    sends = sent(fake)
    assert [(r["method"], r["path"]) for r in recorded][:4] == [(m, p) for m, p, _ in sends][:4]
    # A reply's hidden key is new on each run (it finds a reply made once): the rest is equal.
    def unkeyed(body: Any) -> Any:
        return re.sub(r"reviewbot:reply \w+", "reviewbot:reply", json.dumps(body))

    assert [unkeyed(r["body"]) for r in recorded][:4] == [unkeyed(b) for _, _, b in sends][:4]
    # The issue a dry run did not make is number 0: its edit goes there.
    assert (recorded[4]["method"], recorded[4]["path"], recorded[4]["body"]) == (
        "PATCH", "/repos/octo/demo/issues/0", {"state": "closed"})
