"""The two places a publication goes: the forge (`to_forge`: the review, the sticky summary,
the check run or commit status, through the `Change` protocol) and the runner (`to_runner`: the
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

from bot.forges.base import Annotation, Change, StatusReport
from bot.publishing import outputs
from bot.publishing.gate import Gate
from bot.publishing.outputs import report_gate
from bot.publishing.publication import Publication
from bot.publishing.sync import Synced, publish

Recorded = Sequence[Mapping[str, object]]


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


def deliver(forge: Change, runner: RunnerOut, publication: Publication, number: int,
            recorded: Recorded | None = None) -> Synced:
    """`publication` on change `number`: the outputs, the forge, then the runner."""
    write_outputs(publication)
    if recorded is None:
        delivered = to_forge(forge, publication)
    else:
        with contextlib.redirect_stdout(sys.stderr):  # stdout is the JSON
            delivered = to_forge(forge, publication)
    to_runner(runner, publication, delivered, number, recorded)
    return delivered.outcome


def write_outputs(publication: Publication) -> None:
    outputs.write(publication.outputs)


def to_forge(forge: Change, publication: Publication) -> Delivered:
    outcome = publish(forge, publication.result, publication.items, publication.texts,
                      publication.policy, publication.summary, dialect=publication.dialect)
    report = publication.check(outcome.placed)
    # A token that may not write to the change may not write its check either.
    checked = outcome.status != "read-only" and forge.check(report)
    return Delivered(outcome, report, checked)


def to_runner(runner: RunnerOut, publication: Publication, delivered: Delivered, number: int,
              recorded: Recorded | None = None) -> None:
    """What the CI shows: the annotations when the forge took no check, the log line, the
    gate's lines and the job summary; on a dry run, the JSON of what was not sent."""
    if recorded is not None:
        print_dry_run(publication.gate, recorded)
        report_gate(publication.gate)
        return
    outcome = delivered.outcome
    if not delivered.checked:
        runner.annotate(delivered.report.annotations)
    log(outcome, number, runner)
    report_gate(publication.gate)
    runner.job_summary(publication.job_summary(outcome.placed))


def print_dry_run(gate: Gate | None, requests: Recorded) -> None:
    """A dry run's one output on stdout: the gate (a sweep has none) and the requests it did
    not send, both sides' (the change's and the repository's: notes, replies, issues), as
    JSON."""
    verdict = {} if gate is None else {"gate": {
        "failed": gate.failed, "status": int(gate.exit), "fail_level": gate.fail_level,
        "unchecked": list(gate.unchecked)}}
    print(json.dumps({**verdict, "requests": list(requests)}, indent=2))


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
