"""The review published with the conversation in it: ignored findings left out (not commented,
not gated, listed with who and why), the staged plan shown, and the state carried to the next
run in the summary comment's hidden marker.

The publish step (`bot.commands.deliver`) stays as it is: the forge handed to it appends the
conversation's section to the summary body, and reserves the room for it.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bot.apply.plan import StagedRewrite, plan_for, render
from bot.chat.state import Conversation, read, section, without_ignored
from bot.commands import deliver
from bot.config import Config
from bot.forges.base import Draft, Forge, Posted, Rejected, State, StatusReport
from bot.forges.github.api import Api
from bot.gate import Gate
from bot.model import ReviewResult
from bot.placement import Dialect
from bot.render.markdown import SUMMARY_MARKER
from bot.workspace import texts as head_texts


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


def read_state(api: Api, number: int) -> Conversation:
    """The state in the bot's summary comment. Only a comment a bot account wrote counts:
    anyone may post a comment that looks like a summary, and its state would be theirs."""
    for comment in api.list(f"{api.url}/issues/{number}/comments"):
        body = comment.get("body") or ""
        user = comment.get("user")
        if SUMMARY_MARKER in body and isinstance(user, dict) and user.get("type") == "Bot":
            return read(body)
    return Conversation()


def staged(state: Conversation) -> tuple[StagedRewrite, ...]:
    return tuple(StagedRewrite(s.pattern, s.rewrite, s.lang, s.by) for s in state.staged)


@dataclass(frozen=True)
class Published:
    gate: Gate
    state: Conversation  # with the id of the plan the summary now shows


def publish(forge: Forge, checkout: Path, result: ReviewResult, state: Conversation,
            config: Config, args: argparse.Namespace, env: Mapping[str, str],
            number: int) -> Published:
    """Publish `result` (a review of the PR head in `checkout`) with the conversation."""
    shown = without_ignored(result, state)
    plan = plan_for(checkout, shown, staged(state), "apply")
    text = (render(plan, label=config.apply_label, command=f"{config.command_prefix}apply")
            if not plan.empty or state.staged else "")
    state = replace(state, shown=None if plan.empty else plan.id)
    gate, _ = deliver.deliver(WithConversation(forge, section(state, text)), shown,
                              head_texts(checkout, shown.head, [v.finding.path for v in shown.findings]),
                              deliver.options(args), env, number)
    return Published(gate, state)
