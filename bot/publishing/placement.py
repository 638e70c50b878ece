"""Where each finding goes, as values: one finding's place and comment body (`Item`, made by the
review policy), and what a run did on the forge (`Placed`, made by the sync), which the sync,
the summary and the sinks read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.model import Verdict
from bot.render.markdown import Body

Kind = Literal["inline", "file", "summary"]


@dataclass(frozen=True)
class Item:
    """One commentable finding and its place."""

    verdict: Verdict
    key: str  # unique, marker-safe fingerprint
    kind: Kind
    reason: str = ""  # why it is not inline
    line: int | None = None  # anchor (last line of the range) for inline comments
    start_line: int | None = None  # first line of a multi-line anchor
    body: Body | None = None
    old_path: str | None = None  # the file's base path; None for an added file
    old_line: int | None = None  # the base line of `line` when that line is unchanged


@dataclass(frozen=True)
class Placed:
    """What this run did, for the summary."""

    items: tuple[Item, ...]  # final places (refused comments demoted)
    new: frozenset[str] = frozenset()
    kept: frozenset[str] = frozenset()
    edited: int = 0
    resolved: int = 0  # our threads whose finding is fixed (resolved now or earlier)
    reopened: int = 0
    unresolvable: int = 0  # fixed findings whose threads could not be read
