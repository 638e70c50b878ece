"""The values the review policy, the renderers and the forges share: where a finding goes
(`Item`), what a run did (`Placed`), a comment body (`Body`) and a forge's markdown dialect.

Pure and below all three (it imports only the model), so `render/` never needs `review.py`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from bot.model import Scope, Span, Verdict

Kind = Literal["inline", "file", "summary"]


@dataclass(frozen=True)
class Body:
    text: str
    fingerprint: str
    digest: str


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


@dataclass(frozen=True)
class Dialect:
    """What a forge's comments accept, as data its forge module provides.

    `fence(start, end, anchor)` is the info string of a suggestion block that replaces head
    lines start..end, in a comment whose anchor line is `anchor`; `ranges` says whether a
    comment may sit on a range of lines (else it sits on one line, the first of the range);
    `body_limit` is the longest comment body, in characters; `elsewhere` names where on this
    forge everything a body had no room for can be read; `labels` says whether its changes
    carry labels (else the apply trigger is a comment that names the plan).
    """

    name: str
    body_limit: int
    ranges: bool
    fence: Callable[[int, int, int], str]
    elsewhere: str = "the check run or the SARIF file"
    labels: bool = True


def priority(verdict: Verdict) -> tuple[int, int, str, int, int, str]:
    """Worst first, introduced before changed, then by position."""
    f = verdict.finding
    return (-int(f.severity), 0 if verdict.scope is Scope.INTRODUCED else 1, f.path, f.span.line,
            f.span.column, f.rule)


def last_line(verdict: Verdict) -> int:
    """The finding's last line (`span_last_line`)."""
    return span_last_line(verdict.finding.span)


def span_last_line(span: Span) -> int:
    """A span's last line: one ending at column 1 of a later line stops at the previous line's
    break (a finding's, and a fix's edit)."""
    return span.end_line - 1 if span.end_column == 1 and span.end_line > span.line else span.end_line
