"""The opening every flow that acts on someone's event shares (a comment's commands, the apply
label): an event by a bot account, or by nobody the event names, is ignored; a closed change is
not acted on. Pure."""

from __future__ import annotations

from dataclasses import dataclass

from bot.model import Trigger


@dataclass(frozen=True)
class Skip:
    """The event is not acted on: `line` says why (logged, exit status 0)."""

    line: str


def acting(trigger: Trigger, what: str, closed: str) -> str | Skip:
    """The login `trigger` is acted on for, or why it is not, before anything is read; `what`
    names the event ("a comment", "the label was added"), `closed` what a closed change does
    not get."""
    if trigger.actor_is_bot or not trigger.actor:
        return Skip(f"{what} by the bot account {trigger.actor or '(unknown)'}: ignored")
    if not trigger.open:
        return Skip(f"pull request #{trigger.number} is closed; {closed}")
    return trigger.actor
