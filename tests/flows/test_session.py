"""The summary's closing section replaced with the conversation's state, its review kept: what
a publish that has no review of the new head saves (`bot.flows.session.restated`)."""

from __future__ import annotations

from bot.conversation.state import Conversation, Ignored, Staged, read, section
from bot.flows.session import restated
from bot.render.markdown import SUMMARY_MARKER

REVIEW = f"{SUMMARY_MARKER}\n## reviewbot\n\n2 introduced at `abc123`.\n\n| a | b |\n|---|---|"
IGNORED = Ignored("ruff:F401:abc", "mia", "vendored")
STAGED = Staged("print($A)", "log($A)", None, "mia")


def test_the_applied_plan_leaves_the_summary_and_the_ignored_stay() -> None:
    before = Conversation((IGNORED,), (STAGED,), "0123456789ab")
    body = f"{REVIEW}\n\n{section(before, 'Plan `plan 0123456789ab`: 1 edit.')}"
    after = restated(body, before.applied())
    assert after.startswith(REVIEW) and "Staged" not in after and "plan " not in after
    assert "ignored by @mia: vendored" in after
    assert read(after) == Conversation((IGNORED,))


def test_an_empty_state_leaves_the_review_alone() -> None:
    body = f"{REVIEW}\n\n{section(Conversation((), (STAGED,), 'abcdef'), 'Plan.')}\n"
    assert restated(body, Conversation()) == REVIEW
    assert restated(REVIEW, Conversation()) == REVIEW


def test_a_summary_without_a_closing_section_gets_one() -> None:
    state = Conversation((IGNORED,))
    assert restated(REVIEW, state) == f"{REVIEW}\n\n{section(state)}"
