"""One publication: everything a review shows, built once from values by a pure function
(`build`), then handed to the sinks (`bot.publishing.sinks`): the forge's and the runner's.

What is decided here: the gate, where each finding goes (before the caps, which depend on what
the change already carries), the summary's closing section (the conversation's state and the
staged plan), the output files. What only the forge can tell (what is already posted, what it
refuses) arrives later as `Placed`; the summary, the check report and the job summary are then
rendered from it (`bot.publishing.summary`), the same pages for every flow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from bot.forges.base import StatusReport
from bot.model import ReviewResult
from bot.options import Delivery
from bot.publishing import summary
from bot.publishing.gate import Gate, decide
from bot.publishing.placement import Item, Placed
from bot.publishing.policy import Policy, place
from bot.render.dialect import Dialect
from bot.render.files import Output, rendered


@dataclass(frozen=True)
class Note:
    """A merge queue's word on the change: one comment held by `marker`, edited in place by a
    re-run (`create` False: an earlier one is edited, none is posted), and the run's log line.
    A publication with a note puts no review on the change: the merged result is no change's
    head; the check run or commit status on it says the gate."""

    marker: str
    body: str
    create: bool
    line: str


@dataclass(frozen=True)
class Publication:
    result: ReviewResult  # as shown: ignored findings left out, hunks cut to the forge's diff
    texts: Mapping[str, Sequence[str]]  # the head's lines the comments quote
    gate: Gate
    policy: Policy
    dialect: Dialect  # the forge's, with room left for `closing`
    items: tuple[Item, ...]  # every commented finding placed, before the caps
    delivery: Delivery  # the outputs' paths and the caps
    outputs: tuple[Output, ...]  # the files asked for (SARIF, Code Quality), rendered
    closing: str = ""  # the summary's last section: the conversation's state and the plan
    note: Note | None = None  # a merge queue's, instead of the review and the summary

    def summary(self, placed: Placed) -> str:
        """The sticky summary comment."""
        body = summary.render(self.result, placed, self.gate, self.texts,
                              limit=self.dialect.body_limit - summary.SUMMARY_ROOM,
                              elsewhere=self.dialect.elsewhere)
        return f"{body}\n\n{self.closing}" if self.closing else body

    def check(self, placed: Placed) -> StatusReport:
        """The check run or commit status."""
        return summary.check_report(self.result, self.gate, placed, self.texts)

    def job_summary(self, placed: Placed) -> str:
        return summary.job_summary(self.result, placed, self.gate, self.texts)


def build(result: ReviewResult, texts: Mapping[str, Sequence[str]], dialect: Dialect,
          delivery: Delivery, closing: str = "") -> Publication:
    """The publication of `result` on a forge speaking `dialect`. Pure."""
    # The summary is rendered to fit the body limit: leave room for what is appended.
    room = replace(dialect, body_limit=dialect.body_limit - len(closing) - 2) if closing \
        else dialect
    policy = Policy(max_inline=delivery.max_inline, max_file=delivery.max_file)
    return Publication(result, texts, decide(result), policy, room,
                       place(result, texts, policy, dialect=room), delivery,
                       rendered(result, delivery.sarif, delivery.code_quality), closing)

