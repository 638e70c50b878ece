"""The contract of `Change.summary_body(keep=True)` (bot/forges/base.py), held against a
forge's validating fake: the publish step that follows reuses the flow's read of the summary's
comments once, and never after a write in between."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.forges.base import Change


def kept_read_serves_one_load(change: Change, summary: str, calls: list[Any],
                              listed: Callable[[Any], bool],
                              post: Callable[[str], object]) -> None:
    """`calls`: the fake's request log; `listed`: whether a request lists what holds the
    summary; `post(head)`: one write of a comment, which the next load must see."""
    def reads() -> int:
        return sum(1 for c in calls if listed(c))

    change.summary(change.load(), summary)
    calls.clear()
    assert change.summary_body(keep=True) == summary
    assert change.load().summary_id is not None and reads() == 1
    change.load()  # kept once only
    assert reads() == 2
    state = change.load()
    change.summary_body(keep=True)
    post(state.head)
    assert len(change.load().comments) == 1 and reads() == 5  # written since: read again
