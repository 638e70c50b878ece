"""What the change classes of the forges share at their opening (`gitea/`, `bitbucket/`,
`azure/`, `github/` `change.py`): the pull request a change is of, the range a pull request
event names, and the line that marks a finding's comment fixed (where a forge's resolving
leaves the comment's body as it was, the body says so itself).
"""

from __future__ import annotations

import re

from bot.forges.base import Range
from bot.model import Trigger

FIXED_MARKER = "<!-- reviewbot:fixed -->"
_FIXED_LINE = re.compile(r"\n*[^\n]*" + re.escape(FIXED_MARKER) + r"[^\n]*")


def pull_number(number: int | None, configured: int | None, kind: str) -> int:
    """`number` when given, else the settings' own; ValueError naming `kind` without either
    (a programming error: the runners always name the pull request)."""
    found = configured if number is None else number
    if found is None:
        raise ValueError(f"{kind} needs a pull request number")
    return found


def event_range(trigger: Trigger) -> Range:
    """The base and head a pull request event names (a review's trigger names both)."""
    assert trigger.base_sha and trigger.head_sha  # a pull request event names both
    return Range(trigger.base_sha, trigger.head_sha, trigger.open)


def marked_fixed(body: str, head: str | None) -> str:
    """`body` with its fixed line taken out, and, with `head`, a new one naming the head it
    was fixed in (12 characters)."""
    text = _FIXED_LINE.sub("", body)
    if head is not None:
        text += f"\n\n~~Open~~ **Fixed** in `{head[:12]}`. {FIXED_MARKER}"
    return text
