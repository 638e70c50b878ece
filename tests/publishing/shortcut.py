"""A review published straight to a `Change`, for the forge and fault tests: every finding
placed, then `bot.publishing.sync.publish` with the sticky summary rendered from the review
alone.

The product builds a publication first (`bot.publishing.publication.build`), which decides the
gate and the caps itself and waits the real time between a write's retries; these tests choose
the gate and the policy, and make the waits instant, so they take this shortcut past it."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

from bot.forges.base import Change
from bot.model import ReviewResult
from bot.publishing import summary as summary_md
from bot.publishing.gate import Gate
from bot.publishing.policy import Policy, place
from bot.publishing.sync import Synced, publish


def review(forge: Change, result: ReviewResult, texts: Mapping[str, Sequence[str]], policy: Policy,
           gate: Gate, *, settle: float = 2.0,
           sleep: Callable[[float], None] = time.sleep) -> Synced:
    """Place every finding, then publish with the sticky summary."""
    items = place(result, texts, policy, dialect=forge.dialect)
    limit = forge.dialect.body_limit - summary_md.SUMMARY_ROOM
    return publish(forge, result, items, texts, policy,
                   lambda placed: summary_md.render(result, placed, gate, texts, limit=limit,
                                                    elsewhere=forge.dialect.elsewhere),
                   settle=settle, sleep=sleep)
