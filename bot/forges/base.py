"""The Forge protocol: what the forge-neutral publish flow needs from GitHub or GitLab.

Values in and out are plain dataclasses; SDK objects never leave a forge module. Every
member is required: a forge that cannot do something does a documented no-op.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from bot.errors import BotError, Exit
from bot.review import Annotation


@dataclass(frozen=True)
class Draft:
    """A comment to post: on `line` (and `start_line`..`line`), or on the file when line is None."""

    key: str  # the marker key of the finding
    path: str
    body: str
    line: int | None = None
    start_line: int | None = None


@dataclass(frozen=True)
class Posted:
    """One of our earlier comments, found by its hidden marker."""

    id: str
    key: str
    digest: str
    path: str
    thread: str | None = None  # the thread's id for resolving, when known
    resolved: bool = False
    resolved_by_us: bool = False  # resolved by the account that wrote the comment
    replied: bool = False  # someone else wrote in the thread


@dataclass(frozen=True)
class State:
    """The pull request as the forge sees it now."""

    head: str  # current head sha
    open: bool
    comments: tuple[Posted, ...] = ()
    summary_id: str | None = None
    threads_known: bool = True  # False: thread state could not be read, nothing is resolved


@dataclass(frozen=True)
class Rejected:
    draft: Draft
    reason: str


@dataclass(frozen=True)
class CheckReport:
    name: str
    head: str
    conclusion: Literal["success", "failure", "neutral"]
    title: str
    summary: str
    annotations: tuple[Annotation, ...] = ()


class ReadOnly(BotError):
    """The token may read the pull request but not write to it (fork PRs, missing permission)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, Exit.FORGE)


class Uncertain(BotError):
    """A write failed in a way that may or may not have taken effect (5xx, timeout).

    The caller re-reads the state before writing again, so a retry never duplicates.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, Exit.FORGE)


class Forge(Protocol):
    def load(self) -> State:
        """The PR's head, state, our earlier comments (with thread state) and summary."""
        ...

    def post(self, commit: str, body: str, drafts: Sequence[Draft]) -> list[Rejected]:
        """Post line drafts as one review (split only if the forge refuses a large one) and
        file drafts one by one. Returns the drafts the forge refused; raises Uncertain."""
        ...

    def edit(self, comment: Posted, body: str) -> None: ...

    def delete(self, comment: Posted) -> None:
        """Delete one of our comments: a duplicate left by a write that took effect late."""
        ...

    def resolve(self, comment: Posted, resolved: bool) -> None:
        """Resolve (or reopen) the comment's thread; a no-op when the thread is unknown."""
        ...

    def summary(self, state: State, body: str) -> None:
        """Create the sticky summary comment, or edit it in place."""
        ...

    def check(self, report: CheckReport) -> bool:
        """Publish the check run; False when the token may not (the caller falls back)."""
        ...
