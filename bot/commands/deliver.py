"""The publish step `ci` and `publish` share: one review with inline comments, the sticky
summary, the check run, the job summary and SARIF, from values alone (a review result and the
source lines its comments quote), so it runs with or without a checkout. The gate is the exit
status.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.ci.environment import Runner, current
from bot.commands import common
from bot.forges.base import Forge, StatusReport, status_annotations
from bot.forges.github import change as github
from bot.gate import Gate, decide
from bot.model import ReviewResult
from bot.publish import Outcome
from bot.publish import review as publish_review
from bot.render import summary
from bot.review import Policy

CHECK_NAME = "reviewbot"


@dataclass(frozen=True)
class Options:
    max_inline: int = 50
    max_file: int = 10
    sarif: Path | None = None
    code_quality: Path | None = None


def deliver(forge: Forge | github.DryRun, result: ReviewResult,
            texts: Mapping[str, Sequence[str]], options: Options, env: Mapping[str, str],
            number: int, recorder: github.DryRun | None = None) -> tuple[Gate, Outcome]:
    """Publish `result` on pull request `number`: the gate, and what was published. A dry run
    (`recorder`: the `DryRun` forge that `forge` is, or wraps) prints the requests it would
    send, as JSON, and nothing else."""
    gate = decide(result)
    common.write_sarif(options.sarif, result)
    common.write_code_quality(options.code_quality, result)
    outcome = publish_review(forge, result, texts, Policy(max_inline=options.max_inline,
                                                          max_file=options.max_file), gate)
    report = check_report(result, gate, outcome, texts)
    if recorder is not None:
        recorder.check(report)
        print_dry_run(gate, recorder.requests)
        common.report_gate(gate)
        return gate, outcome
    # The check run or commit status is the forge's; annotations and the job summary, the CI's.
    runner = current(env)
    if outcome.status == "read-only" or not forge.check(report):
        runner.annotate(report.annotations)
    _log(outcome, number, runner)
    common.report_gate(gate)
    runner.job_summary(env, summary.job_summary(result, outcome.placed, gate, texts))
    return gate, outcome


def print_dry_run(gate: Gate, requests: Sequence[Mapping[str, Any]]) -> None:
    """A dry run's one output on stdout: the gate and the requests it did not send, as JSON."""
    print(json.dumps({"gate": {"failed": gate.failed, "status": int(gate.exit),
                               "fail_level": gate.fail_level, "unchecked": list(gate.unchecked)},
                      "requests": list(requests)}, indent=2))


def check_report(result: ReviewResult, gate: Gate, outcome: Outcome,
                 texts: Mapping[str, Sequence[str]]) -> StatusReport:
    introduced = result.count("introduced") + result.count("changed")
    title = (f"{'failing' if gate.failed else 'passing'}: {introduced} new or changed finding"
             f"{'s' * (introduced != 1)}, {result.count('preexisting')} pre-existing")
    if gate.unchecked:
        title += f"; not fully checked: {gate.unchecked[0]}" + (" …" if len(gate.unchecked) > 1 else "")
    body = summary.render(result, outcome.placed, gate, texts, marker=False, limit=60_000)
    return StatusReport(CHECK_NAME, result.head, "failure" if gate.failed else "success",
                        title, body, status_annotations(result))


def _log(outcome: Outcome, number: int, runner: Runner) -> None:
    placed = outcome.placed
    if outcome.status == "read-only":
        runner.warn(runner.ENABLE_COMMENTS)
        print(f"reviewbot: {outcome.message}", file=sys.stderr)
        return
    if outcome.status != "published":
        print(f"reviewbot: {outcome.message}")
        return
    new = sum(1 for i in placed.items if i.key in placed.new)
    folded = sum(1 for i in placed.items if i.kind == "summary")
    print(f"reviewbot: {runner.CHANGE}{number}: {new} new comments, {len(placed.kept)} kept "
          f"({placed.edited} edited), {placed.resolved} fixed threads resolved, "
          f"{folded} findings in the summary only")


def add_options(p: argparse.ArgumentParser) -> None:
    """The publishing options of `ci` and `publish`."""
    p.add_argument("--max-comments", type=_count, default=50, metavar="N",
                   help="inline comments on the PR; the rest go to the summary (default 50)")
    p.add_argument("--max-file-comments", type=_count, default=10, metavar="N",
                   help="file-level comments on the PR (default 10)")
    p.add_argument("--sarif", type=Path, metavar="FILE", help="also write SARIF 2.1.0 here")
    p.add_argument("--code-quality", type=Path, metavar="FILE",
                   help="also write a GitLab Code Quality report here "
                        "(artifacts:reports:codequality)")


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {value}")
    return value


def options(args: argparse.Namespace) -> Options:
    return Options(args.max_comments, args.max_file_comments, args.sarif,
                   args.code_quality)
