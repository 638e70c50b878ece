"""The conversation's part of a publication: the findings people ignored left out, the staged
plan at the head offered (computed from the checkout's git objects), and the state carried to
the next run in the summary's closing section."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bot.apply.plan import StagedRewrite, plan_for, render
from bot.config import Config
from bot.conversation.state import Conversation, section, without_ignored
from bot.model import ReviewResult
from bot.publishing.turn import Shown
from bot.render.markdown import escape
from bot.revisions.workspace import texts as head_texts


@dataclass(frozen=True)
class Offered:
    shown: Shown
    state: Conversation  # with the id of the plan the summary now shows


def with_conversation(checkout: Path, result: ReviewResult, state: Conversation, config: Config,
                      notes: Sequence[str] = (), *, labels: bool = True,
                      texts: Mapping[str, Sequence[str]] | None = None) -> Offered:
    """`result` (a review of the change's head in `checkout`) as shown with the conversation:
    ignored findings left out (listed with who and why), the staged plan shown, and the state
    in the summary's hidden marker; `notes`, `labels`: see `offer`; `texts`: the head's lines,
    read from `checkout` when not given."""
    shown = without_ignored(result, state)
    text, state = offer(checkout, shown, state, config, notes, labels=labels)
    if texts is None:
        texts = head_texts(checkout, shown.head, [v.finding.path for v in shown.findings])
    return Offered(Shown(shown, texts, section(state, text)), state)


def offer(checkout: Path, shown: ReviewResult, state: Conversation, config: Config,
          notes: Sequence[str] = (), *, labels: bool = True) -> tuple[str, Conversation]:
    """The staged plan at `shown.head` (a review with the ignored findings left out) as the
    summary shows it, and the state with its id; `notes` say what was left out of it and why
    (a fix another job claimed that could not be re-derived here); `labels`: the forge has
    labels, so the apply label is offered beside the command."""
    plan = plan_for(checkout, shown, staged(state), "apply")
    text = (render(plan, label=config.apply_label if labels else None,
                   command=f"{config.command_prefix}apply")
            if not plan.empty or state.staged else "")
    return with_notes(text, notes), replace(state, shown=None if plan.empty else plan.id)


def with_notes(text: str, notes: Sequence[str]) -> str:
    if not notes:
        return text
    return "\n\n".join([*([text] if text else []),
                        "Not offered:\n\n" + "\n".join(f"- {escape(n)}" for n in notes)])


def staged(state: Conversation) -> tuple[StagedRewrite, ...]:
    return tuple(StagedRewrite(s.pattern, s.rewrite, s.lang, s.by) for s in state.staged)
