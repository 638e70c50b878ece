"""The change classes' shared opening (`bot/forges/change.py`): the pull request's number, the
range a pull request event names, and the fixed line of a finding's comment."""

from __future__ import annotations

import pytest

from bot.forges.base import Range
from bot.forges.change import FIXED_MARKER, event_range, marked_fixed, pull_number
from bot.model import Trigger

BODY = "**ruff** F401: `os` imported but unused\n\n<!-- reviewbot:finding fp-a -->"


def test_a_fixed_comment_names_the_head_it_was_fixed_in_and_loses_the_line_when_it_returns() -> None:
    fixed = marked_fixed(BODY, "0123456789abcdef")
    assert fixed == f"{BODY}\n\n~~Open~~ **Fixed** in `0123456789ab`. {FIXED_MARKER}"
    assert marked_fixed(fixed, None) == BODY
    again = marked_fixed(fixed, "fedcba9876543210")  # fixed anew: one line, the new head
    assert again.count(FIXED_MARKER) == 1 and "`fedcba987654`" in again
    assert "0123456789ab" not in again
    assert marked_fixed(BODY, None) == BODY


def test_the_number_given_wins_over_the_settings_and_none_at_all_is_refused() -> None:
    assert pull_number(7, 3, "GiteaChange") == 7
    assert pull_number(None, 3, "GiteaChange") == 3
    with pytest.raises(ValueError, match="BitbucketChange needs a pull request number"):
        pull_number(None, None, "BitbucketChange")


def test_a_pull_request_event_s_range_is_its_base_and_head() -> None:
    trigger = Trigger("gitea", "pull_request", "review", number=1, base_sha="b" * 40,
                      head_sha="h" * 40, open=False)
    assert event_range(trigger) == Range("b" * 40, "h" * 40, False)
