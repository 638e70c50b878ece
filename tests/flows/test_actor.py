"""The opening of the comment and label flows: a bot's event is ignored, a closed change is
not acted on, anyone else's event on an open change is acted on for its actor."""

from __future__ import annotations

from typing import Literal

import pytest

from bot.errors import BotError, Exit
from bot.flows.actor import Skip, acting
from bot.model import Trigger


def trigger(actor: str | None, *, bot: bool = False, open: bool = True) -> Trigger:
    return Trigger("github", "issue_comment", "comment", number=7, actor=actor,
                   actor_is_bot=bot, open=open)


@pytest.mark.parametrize(("event", "outcome"), [
    (trigger("alice"), "alice"),
    (trigger("github-actions[bot]", bot=True),
     Skip("a comment by the bot account github-actions[bot]: ignored")),
    (trigger("alice", open=False), Skip("pull request #7 is closed; commands are not run")),
    (trigger("renovate[bot]", bot=True, open=False),
     Skip("a comment by the bot account renovate[bot]: ignored")),
])
def test_who_a_comment_is_acted_on_for(event: Trigger, outcome: str | Skip) -> None:
    assert acting(event, "a comment", "commands are not run") == outcome


@pytest.mark.parametrize(("forge", "name"), [
    ("github", "GitHub"), ("gitlab", "GitLab"), ("gitea", "Gitea"), ("bitbucket", "Bitbucket"),
    ("azure", "Azure DevOps")])
def test_a_comment_the_step_could_not_read_stops_as_a_missing_token(
        forge: Literal["github", "gitlab", "gitea", "bitbucket", "azure"], name: str) -> None:
    """A comment's run whose trigger only points at the comment (Bitbucket's and Azure's, in a
    step without the token): who wrote it is unknown, which is no reason to pass."""
    pointing = Trigger(forge, "comment", "comment", number=7, comment_id=9,
                       comment_body="/fix")  # Bitbucket's: the relay's hint, not the comment
    with pytest.raises(BotError) as raised:
        acting(pointing, "a comment", "commands are not run")
    assert raised.value.code == Exit.USAGE
    assert raised.value.message.startswith(f"no {name} token: comment 9 was not read")
    assert "\n" not in raised.value.message


def test_a_label_event_that_names_nobody_is_ignored() -> None:
    labeled = Trigger("gitlab", "merge_request", "label", number=7)
    assert acting(labeled, "the label was added", "the label is not acted on") == \
        Skip("the label was added by nobody the event names: ignored")
