"""The opening of the comment and label flows: a bot's event is ignored, a closed change is
not acted on, anyone else's event on an open change is acted on for its actor."""

from __future__ import annotations

import pytest

from bot.flows.actor import Skip, acting
from bot.model import Trigger


def trigger(actor: str | None, *, bot: bool = False, open: bool = True) -> Trigger:
    return Trigger("github", "issue_comment", "comment", number=7, actor=actor,
                   actor_is_bot=bot, open=open)


@pytest.mark.parametrize(("event", "outcome"), [
    (trigger("alice"), "alice"),
    (trigger("github-actions[bot]", bot=True),
     Skip("a comment by the bot account github-actions[bot]: ignored")),
    (trigger(None), Skip("a comment by the bot account (unknown): ignored")),
    (trigger("alice", open=False), Skip("pull request #7 is closed; commands are not run")),
    (trigger("renovate[bot]", bot=True, open=False),
     Skip("a comment by the bot account renovate[bot]: ignored")),
])
def test_who_a_comment_is_acted_on_for(event: Trigger, outcome: str | Skip) -> None:
    assert acting(event, "a comment", "commands are not run") == outcome
