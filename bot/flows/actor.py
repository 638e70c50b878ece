"""The opening every flow that acts on someone's event shares (a comment's commands, the apply
label): an event by a bot account, or by nobody the event names, is ignored; a comment the
step could not read (no token) stops the run; a closed change is not acted on. Pure."""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import BotError, Exit
from bot.model import Trigger

FORGE_NAMES = {"github": "GitHub", "gitlab": "GitLab", "gitea": "Gitea",
               "bitbucket": "Bitbucket", "azure": "Azure DevOps"}


@dataclass(frozen=True)
class Skip:
    """The event is not acted on: `line` says why (logged, exit status 0)."""

    line: str


def acting(trigger: Trigger, what: str, closed: str) -> str | Skip:
    """The login `trigger` is acted on for, or why it is not, before anything is read; `what`
    names the event ("a comment", "the label was added"), `closed` what a closed change does
    not get. BotError (usage, as a missing token is everywhere) for a comment whose author is
    unknown: an event that carries its comment names the author (its runner requires it), so
    this is a trigger that only points at the comment (Bitbucket's, Azure DevOps'), which its
    runner reads with the token; without one nobody knows who wrote it."""
    if trigger.kind == "comment" and not trigger.actor and not trigger.actor_is_bot:
        raise BotError(f"no {FORGE_NAMES[trigger.forge]} token: comment {trigger.comment_id} "
                       "was not read, so who wrote it is unknown and no command is run; give "
                       "this step the token, or run `reviewbot analyze` here and "
                       "`reviewbot publish` in a step that has it", Exit.USAGE)
    if trigger.actor_is_bot:
        return Skip(f"{what} by the bot account {trigger.actor or '(unknown)'}: ignored")
    if not trigger.actor:
        return Skip(f"{what} by nobody the event names: ignored")
    if not trigger.open:
        return Skip(f"pull request #{trigger.number} is closed; {closed}")
    return trigger.actor
