"""A flow's turn published in one place (`bot.publishing.turn`): what is built from it, the
exit status each kind of turn gives, and a comment's reaction after the delivery."""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import pytest

from bot.errors import BotError, Exit
from bot.forges.base import Posted, State
from bot.forges.github.change import DIALECT
from bot.model import FileChange, Finding, ReviewResult, Scope, Severity, Span, Verdict
from bot.options import Delivery
from bot.publishing import turn
from bot.publishing.queue import MARKER
from bot.publishing.turn import Queued, Reaction, Review, Shown, Turn, publish
from bot.render.markdown import safe_fingerprint

TEXTS = {"app.py": ["import os", "x = 1", ""]}
RUNNER = SimpleNamespace(change_name="#")


def failing() -> ReviewResult:
    finding = Finding("ruff", "F401", Severity.ERROR, "`os` imported but unused", "app.py",
                      Span(1, 1, 1, 10))
    verdict = Verdict(finding, Scope.INTRODUCED, "fp:os", "diff")
    change = FileChange("app.py", "app.py", "modified", frozenset({1, 2}),
                        frozenset({1, 2}))
    return ReviewResult("main", "a" * 40, "c" * 40, (), (verdict,), (), (change,))


class Forge:
    """The change and the repository a turn's publication touches, and what was asked."""

    def __init__(self, diff: Mapping[str, frozenset[int]] | None = None,
                 comments: tuple[Posted, ...] = (), fail: BotError | None = None) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.fail = fail
        self.diff = diff or {"app.py": frozenset({1, 2})}
        self.comments = comments
        self.change = SimpleNamespace(dialect=DIALECT, diff_lines=self.diff_lines,
                                      load=self.load)
        self.connection = SimpleNamespace(change=self.change)

    def diff_lines(self) -> Mapping[str, frozenset[int]]:
        self.calls.append(("diff_lines",))
        return self.diff

    def load(self) -> State:
        self.calls.append(("load",))
        return State("c" * 40, True, self.comments)

    def deliver(self, connection: Any, runner: Any, publication: Any, number: int) -> Any:
        self.calls.append(("deliver", publication, number))
        if self.fail is not None:
            raise self.fail
        return SimpleNamespace(status=self.status)

    status = "published"

    def reply(self, number: int, body: str) -> None:
        self.calls.append(("reply", number, body))

    def react(self, number: int, comment: int, reaction: str) -> None:
        self.calls.append(("react", number, comment, reaction))


@pytest.fixture
def forge(monkeypatch: pytest.MonkeyPatch) -> Forge:
    made = Forge()
    monkeypatch.setattr(turn, "deliver", made.deliver)
    return made


def review(forge: Forge, **kwargs: Any) -> Review:
    return Review(forge.connection, 7, Shown(failing(), TEXTS, "closing words"),
                  Delivery(), **kwargs)


def delivered(forge: Forge) -> list[Any]:
    return [c for c in forge.calls if c[0] == "deliver"]


def test_a_turn_with_nothing_to_publish_is_its_status(forge: Forge) -> None:
    assert publish(RUNNER, Turn(int(Exit.USAGE))) == 2
    assert forge.calls == []


def test_the_review_is_built_from_what_the_flow_decided_and_the_gate_is_the_exit(
        forge: Forge) -> None:
    assert publish(RUNNER, Turn(review=review(forge), exiting="gate")) == 1
    [(_, publication, number)] = delivered(forge)
    assert number == 7 and publication.closing == "closing words" and publication.note is None
    assert publication.result == failing() and publication.gate.failed
    assert ("diff_lines",) not in forge.calls  # the flow's own review: its diff is the truth


def test_a_comment_s_or_label_s_turn_exits_with_its_own_status_whatever_the_gate(
        forge: Forge) -> None:
    assert publish(RUNNER, Turn(review=review(forge))) == 0
    assert len(delivered(forge)) == 1


def test_an_artifact_s_review_is_cut_to_the_forge_s_diff_and_a_stale_head_exits_0(
        forge: Forge) -> None:
    forge.diff = {"app.py": frozenset({2})}
    forge.status = "stale"
    stale = Turn(review=review(forge, in_diff=True), exiting="gate unless stale")
    assert publish(RUNNER, stale) == 0
    [(_, publication, _)] = delivered(forge)
    assert publication.result.changes[0].hunk_lines == frozenset({2})
    forge.status = "published"
    assert publish(RUNNER, stale) == 1


def test_a_queue_s_turn_carries_its_note_on_the_change_against_its_own_review(
        forge: Forge) -> None:
    forge.comments = (Posted("1", safe_fingerprint("fp:os") + "~2", "d", "app.py"),)
    queued = review(forge, queued=Queued("merge queue", "main"))
    assert publish(RUNNER, Turn(review=queued, exiting="gate")) == 1
    [(_, publication, _)] = delivered(forge)
    note = publication.note
    assert note.body.startswith(MARKER) and note.create
    assert note.line == ("merge queue: #7 merged as cccccccccccc onto aaaaaaaaaaaa: fails; 0 new "
                         "or changed finding(s) from the combination, 1 already in the "
                         "change's review")
    assert [c[0] for c in forge.calls] == ["load", "deliver"]


def test_a_comment_s_reaction_follows_the_delivery(forge: Forge) -> None:
    answered = Turn(review=review(forge), reaction=Reaction(forge, 7, 99, True))
    assert publish(RUNNER, answered) == 0
    assert [c[0] for c in forge.calls] == ["deliver", "react"]
    assert forge.calls[-1] == ("react", 7, 99, "rocket")
    forge.calls.clear()
    failed = Turn(reaction=Reaction(forge, 7, 99, False))
    assert publish(RUNNER, failed) == 0
    assert forge.calls == [("react", 7, 99, "confused")]


def test_a_failed_publication_is_replied_to_then_confused_with_its_exit_status(
        forge: Forge) -> None:
    forge.fail = BotError("the forge said <no>", Exit.FORGE)
    answered = Turn(review=review(forge), reaction=Reaction(forge, 7, 99, True))
    assert publish(RUNNER, answered) == 3
    assert [c[0] for c in forge.calls] == ["deliver", "reply", "react"]
    assert forge.calls[1][2].startswith("reviewbot failed: the forge said ")
    assert "<no>" not in forge.calls[1][2]  # escaped
    assert forge.calls[-1] == ("react", 7, 99, "confused")


def test_without_a_reaction_a_failed_publication_is_the_caller_s(forge: Forge) -> None:
    forge.fail = BotError("down", Exit.FORGE)
    with pytest.raises(BotError):
        publish(RUNNER, Turn(review=review(forge), exiting="gate"))
