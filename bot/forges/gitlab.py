"""GitLab: its markdown dialect. (The merge request forge over python-gitlab comes here.)

A GitLab diff note sits on one line; its suggestion block says how many lines above and
below that line it replaces (```suggestion:-A+B, at most 100 each way).
"""

from __future__ import annotations

from bot.placement import Dialect

SUGGESTION_REACH = 100  # lines above and below the commented line a suggestion may replace


def fence(start: int, end: int, anchor: int) -> str:
    """`suggestion:-A+B` for replacing lines start..end from a note on line `anchor`."""
    above, below = anchor - start, end - anchor
    if not 0 <= above <= SUGGESTION_REACH or not 0 <= below <= SUGGESTION_REACH:
        raise ValueError(f"lines {start}..{end} cannot be suggested from line {anchor}")
    return f"suggestion:-{above}+{below}"


# Notes are "Limited to 1,000,000 characters" (GitLab's notes API).
DIALECT = Dialect("gitlab", body_limit=1_000_000, ranges=False, fence=fence)
