"""What a flow decided (`Turn`), and the one place that publishes it (`publish`).

A flow reads, reviews, replies and commits, then returns its turn: the exit status when
nothing is to be published, or the review to publish with what the publication is built from
(`Shown`) and where it goes; a comment's last reaction rides along, since it says whether the
publication went through too. `publish` builds the publication, hands it to the sinks, performs
the reaction and says the exit status: the command shells call it once, so no flow carries the
publishing wing in its own trip.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from bot.errors import BotError, Exit
from bot.forges.base import Connection
from bot.forges.repository import Repository
from bot.model import ReviewResult
from bot.options import Delivery
from bot.publishing import queue as words
from bot.publishing.policy import within_diff
from bot.publishing.publication import Note, Publication, build
from bot.publishing.sinks import RunnerOut, deliver
from bot.render.markdown import escape

# Whose word the exit status is: the turn's own (a comment's or the label's job reports the
# commands, the gate is the check run's), the gate's, or the gate's unless the change's head
# moved since the analysis (that analysis is history: the run of the new head decides).
Exiting = Literal["status", "gate", "gate unless stale"]


@dataclass(frozen=True)
class Shown:
    """A review as the change is to show it: the result (ignored findings left out), the
    head's lines its comments quote, and the summary's closing section (the conversation's
    state and the staged plan)."""

    result: ReviewResult
    texts: Mapping[str, Sequence[str]]
    closing: str = ""


@dataclass(frozen=True)
class Queued:
    """A merge queue's (or train's) word on the change instead of a review: `queue` names it
    ("merge queue", "merge train"), `target` is the branch it merges into."""

    queue: str
    target: str | None


@dataclass(frozen=True)
class Review:
    """What to publish on change `number`. `in_diff`: the inline positions are cut to the
    diff as the forge reports it first (an artifact's are the word of the job that ran the
    change's code)."""

    connection: Connection
    number: int
    shown: Shown
    delivery: Delivery
    in_diff: bool = False
    queued: Queued | None = None


@dataclass(frozen=True)
class Reaction:
    """A comment's last word, after the publication: `rocket` when its commands (and the
    publication) went through, else `confused`; a failed publication is replied to first."""

    repository: Repository
    number: int
    comment: int
    ok: bool


@dataclass(frozen=True)
class Turn:
    status: int = int(Exit.OK)
    review: Review | None = None
    exiting: Exiting = "status"
    reaction: Reaction | None = None


def publish(runner: RunnerOut, turn: Turn) -> int:
    """`turn`'s review built and delivered, then its reaction; the exit status."""
    reaction = turn.reaction
    if reaction is None:
        return _delivered(runner, turn)
    ok, status = reaction.ok, turn.status
    try:
        status = _delivered(runner, turn)
    except BotError as exc:
        reaction.repository.reply(reaction.number, f"reviewbot failed: {escape(exc.message)}")
        ok, status = False, int(exc.code)
    reaction.repository.react(reaction.number, reaction.comment, "rocket" if ok else "confused")
    return status


def _delivered(runner: RunnerOut, turn: Turn) -> int:
    review = turn.review
    if review is None:
        return turn.status
    publication = publication_of(review, runner.change_name)
    outcome = deliver(review.connection, runner, publication, review.number)
    if turn.exiting == "status":
        return turn.status
    if turn.exiting == "gate unless stale" and outcome.status == "stale":
        return int(Exit.OK)
    return int(publication.gate.exit)


def publication_of(review: Review, change_name: str) -> Publication:
    """The publication `review` asks for; reads the forge's diff when it is to be cut to it,
    and a queue's the change's comments."""
    change = review.connection.change
    assert change is not None  # a review is of one change
    shown = review.shown
    result = within_diff(shown.result, change.diff_lines()) if review.in_diff else shown.result
    publication = build(result, shown.texts, change.dialect, review.delivery, shown.closing)
    if review.queued is None:
        return publication
    # The change's own review: the fingerprints of its comments are what it already raised.
    known = {words.known_key(c.key) for c in change.load().comments}
    return replace(publication, note=noted(publication, review.queued, known,
                                           f"{change_name}{review.number}"))


def noted(publication: Publication, queued: Queued, known: Collection[str], change: str) -> Note:
    """The queue's comment on `change` (posted when the gate fails, else only an earlier one
    edited) and the run's log line; `known`: the marker keys of the change's own review's
    comments."""
    result, decided = publication.result, publication.gate
    body = words.body(result, decided, known, publication.texts, queue=queued.queue,
                      target=queued.target)
    line = words.line(result, decided, known, queue=queued.queue, change=change)
    return Note(words.MARKER, body, decided.failed, line)
