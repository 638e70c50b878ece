"""The two places a publication goes: the forge (`to_forge`: the review, the sticky summary,
the check run or commit status, through the `Change` protocol; for a merge queue the check and
its note on the change) and the runner (`to_runner`: the
CI's annotations and job summary, SARIF and the Code Quality report, the log, the gate's
lines). `deliver` hands one publication to both, in that order.

A dry run (the connection's `recorded` writes) prints, as the one JSON document on stdout, the
gate and every write it did not send; the rest of the log goes to stderr.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from bot.errors import ReadOnly
from bot.forges.base import Annotation, Change, Connection, StatusReport
from bot.forges.repository import Repository
from bot.publishing import outputs
from bot.publishing.gate import Gate
from bot.publishing.outputs import report_gate
from bot.publishing.placement import Placed
from bot.publishing.publication import Note, Publication
from bot.publishing.sync import Synced, publish, with_kind

Recorded = Sequence[Mapping[str, object]]
NOT_INLINE = "a merged result in a merge queue or train takes no inline comments"


class RunnerOut(Protocol):
    """What the runner sink needs of a CI runner (`bot.ci.base.Runner` has it)."""

    @property
    def change_name(self) -> str: ...

    @property
    def enable_comments(self) -> str: ...

    def annotate(self, annotations: Sequence[Annotation]) -> None: ...

    def job_summary(self, text: str) -> None: ...

    def warn(self, text: str) -> None: ...


@dataclass(frozen=True)
class Delivered:
    outcome: Synced
    report: StatusReport
    checked: bool  # the forge took the check run or commit status


def deliver(connection: Connection, runner: RunnerOut, publication: Publication,
            number: int) -> Synced:
    """`publication` on change `number`: the outputs, the forge, then the runner; on a dry run
    (the connection's `recorded` writes) stdout is kept for the JSON of what was not sent."""
    outputs.write(publication.outputs)
    if connection.recorded is None:
        delivered = to_forge(connection, publication, number)
    else:
        with contextlib.redirect_stdout(sys.stderr):
            delivered = to_forge(connection, publication, number)
    to_runner(runner, publication, delivered, number, connection.recorded)
    return delivered.outcome


def to_forge(connection: Connection, publication: Publication, number: int) -> Delivered:
    """The review, edits and resolutions and the sticky summary, then the check; with a merge
    queue's note, the check on the merged result and then the note instead."""
    change = connection.change
    assert change is not None  # a publication is about one change
    if publication.note is not None:
        return _noted(connection.repository, change, publication, publication.note, number)
    outcome = publish(change, publication.result, publication.items, publication.texts,
                      publication.policy, publication.summary, dialect=publication.dialect)
    report = publication.check(outcome.placed)
    # A token that may not write to the change may not write its check either.
    checked = outcome.status != "read-only" and change.check(report)
    return Delivered(outcome, report, checked)


def _noted(repository: Repository, change: Change, publication: Publication, note: Note,
           number: int) -> Delivered:
    placed = Placed(with_kind(publication.items, "summary", NOT_INLINE))
    report = publication.check(placed)
    checked = change.check(report)
    try:
        repository.note(number, note.marker, note.body, create=note.create)
    except ReadOnly as exc:  # the gate is the exit status all the same
        return Delivered(Synced("read-only", placed, exc.message), report, checked)
    return Delivered(Synced("published", placed), report, checked)


def to_runner(runner: RunnerOut, publication: Publication, delivered: Delivered, number: int,
              recorded: Recorded | None = None) -> None:
    """What the CI shows: the annotations when the forge took no check, the log line, the
    gate's lines and the job summary; on a dry run, the JSON of what was not sent (and a
    queue's log line) instead of the annotations and the job summary."""
    if recorded is not None:
        print_dry_run(publication.gate, recorded)
    elif not delivered.checked:
        runner.annotate(delivered.report.annotations)
    if publication.note is not None:
        log_note(publication.note, delivered.outcome, number, runner)
    elif recorded is None:
        log(delivered.outcome, number, runner)
    report_gate(publication.gate)
    if recorded is None:
        runner.job_summary(publication.job_summary(delivered.outcome.placed))


def print_dry_run(gate: Gate | None, requests: Recorded) -> None:
    """A dry run's one output on stdout: the gate (a sweep has none) and the requests it did
    not send, both sides' (the change's and the repository's: notes, replies, issues), as
    JSON."""
    verdict = {} if gate is None else {"gate": {
        "failed": gate.failed, "status": int(gate.exit), "fail_level": gate.fail_level,
        "unchecked": list(gate.unchecked)}}
    print(json.dumps({**verdict, "requests": list(requests)}, indent=2))


def log_note(note: Note, outcome: Synced, number: int, runner: RunnerOut) -> None:
    if outcome.status == "read-only":
        runner.warn(f"reviewbot could not comment on {runner.change_name}{number} "
                    f"({outcome.message}): {runner.enable_comments}")
    print(f"reviewbot: {note.line}", file=sys.stderr)


def log(outcome: Synced, number: int, runner: RunnerOut) -> None:
    placed = outcome.placed
    if outcome.status == "read-only":
        runner.warn(runner.enable_comments)
        print(f"reviewbot: {outcome.message}", file=sys.stderr)
        return
    if outcome.status != "published":
        print(f"reviewbot: {outcome.message}")
        return
    new = sum(1 for i in placed.items if i.key in placed.new)
    folded = sum(1 for i in placed.items if i.kind == "summary")
    print(f"reviewbot: {runner.change_name}{number}: {new} new comments, {len(placed.kept)} kept "
          f"({placed.edited} edited), {placed.resolved} fixed threads resolved, "
          f"{folded} findings in the summary only")
