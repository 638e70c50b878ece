"""The publish step every flow ends with: one review with inline comments, the sticky summary
(with the conversation's section), the check run or commit status, the CI's annotations and
job summary, SARIF and the Code Quality report, from values alone (a review result and the
source lines its comments quote). The gate is the exit status.

A dry run (the connection's `recorded` writes) prints, as the one JSON document on stdout, the
gate and every write it did not send; the publish step's log goes to stderr.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bot.apply.plan import StagedRewrite, plan_for, render
from bot.ci.base import Runner
from bot.config import Config
from bot.conversation.state import Conversation, section, without_ignored
from bot.forges.base import Draft, Forge, Posted, Rejected, State, StatusReport, status_annotations
from bot.model import ReviewResult, Scope
from bot.options import Delivery
from bot.publishing import summary
from bot.publishing.gate import Gate, decide
from bot.publishing.outputs import report_gate, write_code_quality, write_sarif
from bot.publishing.placement import Dialect
from bot.publishing.policy import Policy
from bot.publishing.sync import Synced
from bot.publishing.sync import review as publish_review
from bot.render.markdown import escape
from bot.workspace import texts as head_texts

CHECK_NAME = "reviewbot"
Recorded = Sequence[Mapping[str, object]]


def deliver(forge: Forge, result: ReviewResult, texts: Mapping[str, Sequence[str]],
            delivery: Delivery, runner: Runner, number: int, recorded: Recorded | None = None
            ) -> tuple[Gate, Synced]:
    """Publish `result` on change `number`: the gate, and what was published."""
    gate = decide(result)
    write_sarif(delivery.sarif, result)
    write_code_quality(delivery.code_quality, result)
    policy = Policy(max_inline=delivery.max_inline, max_file=delivery.max_file)
    if recorded is not None:
        with contextlib.redirect_stdout(sys.stderr):  # stdout is the JSON
            outcome = publish_review(forge, result, texts, policy, gate)
            forge.check(check_report(result, gate, outcome, texts))
        print_dry_run(gate, recorded)
        report_gate(gate)
        return gate, outcome
    outcome = publish_review(forge, result, texts, policy, gate)
    report = check_report(result, gate, outcome, texts)
    # The check run or commit status is the forge's; annotations and the job summary, the CI's.
    if outcome.status == "read-only" or not forge.check(report):
        runner.annotate(report.annotations)
    _log(outcome, number, runner)
    report_gate(gate)
    runner.job_summary(summary.job_summary(result, outcome.placed, gate, texts))
    return gate, outcome


@dataclass(frozen=True)
class Published:
    gate: Gate
    outcome: Synced
    state: Conversation  # with the id of the plan the summary now shows


def with_conversation(forge: Forge, checkout: Path, result: ReviewResult, state: Conversation,
                      config: Config, delivery: Delivery, runner: Runner, number: int,
                      recorded: Recorded | None = None, notes: Sequence[str] = ()) -> Published:
    """Publish `result` (a review of the change's head in `checkout`) with the conversation:
    ignored findings left out (listed with who and why), the staged plan shown, and the state
    carried to the next run in the summary's hidden marker; `notes`: see `offer`."""
    shown = without_ignored(result, state)
    text, state = offer(checkout, shown, state, config, notes)
    texts = head_texts(checkout, shown.head, [v.finding.path for v in shown.findings])
    gate, outcome = deliver(WithConversation(forge, section(state, text)), shown, texts,
                            delivery, runner, number, recorded)
    return Published(gate, outcome, state)


def offer(checkout: Path, shown: ReviewResult, state: Conversation, config: Config,
          notes: Sequence[str] = ()) -> tuple[str, Conversation]:
    """The staged plan at `shown.head` (a review with the ignored findings left out) as the
    summary shows it, and the state with its id; `notes` say what was left out of it and why
    (a fix another job claimed that could not be re-derived here)."""
    plan = plan_for(checkout, shown, staged(state), "apply")
    text = (render(plan, label=config.apply_label, command=f"{config.command_prefix}apply")
            if not plan.empty or state.staged else "")
    if notes:
        text = "\n\n".join([*([text] if text else []),
                             "Not offered:\n\n" + "\n".join(f"- {escape(n)}" for n in notes)])
    return text, replace(state, shown=None if plan.empty else plan.id)


def staged(state: Conversation) -> tuple[StagedRewrite, ...]:
    return tuple(StagedRewrite(s.pattern, s.rewrite, s.lang, s.by) for s in state.staged)


class WithConversation:
    """`inner`, whose summary comment ends with `extra`."""

    def __init__(self, inner: Forge, extra: str) -> None:
        self._inner = inner
        self._extra = extra
        # The summary is rendered to fit the body limit: leave room for what is appended.
        self.dialect: Dialect = replace(inner.dialect,
                                        body_limit=inner.dialect.body_limit - len(extra) - 2)

    def load(self) -> State:
        return self._inner.load()

    def diff_lines(self) -> Mapping[str, frozenset[int]]:
        return self._inner.diff_lines()

    def post(self, commit: str, body: str, drafts: Sequence[Draft]) -> list[Rejected]:
        return self._inner.post(commit, body, drafts)

    def edit(self, comment: Posted, body: str) -> None:
        self._inner.edit(comment, body)

    def delete(self, comment: Posted) -> None:
        self._inner.delete(comment)

    def resolve(self, comment: Posted, resolved: bool) -> None:
        self._inner.resolve(comment, resolved)

    def summary(self, state: State, body: str) -> None:
        self._inner.summary(state, f"{body}\n\n{self._extra}" if self._extra else body)

    def check(self, report: StatusReport) -> bool:
        return self._inner.check(report)


def print_dry_run(gate: Gate, requests: Recorded) -> None:
    """A dry run's one output on stdout: the gate and the requests it did not send, as JSON."""
    print(json.dumps({"gate": {"failed": gate.failed, "status": int(gate.exit),
                               "fail_level": gate.fail_level, "unchecked": list(gate.unchecked)},
                      "requests": list(requests)}, indent=2))


def check_report(result: ReviewResult, gate: Gate, outcome: Synced,
                 texts: Mapping[str, Sequence[str]]) -> StatusReport:
    introduced = result.count(Scope.INTRODUCED) + result.count(Scope.CHANGED)
    title = (f"{'failing' if gate.failed else 'passing'}: {introduced} new or changed finding"
             f"{'s' * (introduced != 1)}, {result.count(Scope.PREEXISTING)} pre-existing")
    if gate.unchecked:
        title += f"; not fully checked: {gate.unchecked[0]}" + (" …" if len(gate.unchecked) > 1 else "")
    body = summary.render(result, outcome.placed, gate, texts, marker=False, limit=60_000)
    return StatusReport(CHECK_NAME, result.head, "failure" if gate.failed else "success",
                        title, body, status_annotations(result))


def _log(outcome: Synced, number: int, runner: Runner) -> None:
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
