"""The Forge protocol: what the forge-neutral publish flow needs from one pull (merge) request.

Values in and out are plain dataclasses; SDK objects never leave a forge module. Every
member is required: a forge that cannot do something does a documented no-op. What a forge
does outside one pull request (replies, reactions, permissions, labels, issues) is the
`Repository` protocol in `repository.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from bot.errors import BotError, Exit
from bot.model import ReviewResult, Severity
from bot.placement import COMMENTED_SCOPES, Dialect, last_line, priority

MESSAGE_LIMIT = 60_000  # characters of a finding's message kept in a status annotation
TITLE_LIMIT = 255


@dataclass(frozen=True)
class Draft:
    """A comment to post: on `line` (and `start_line`..`line`), or on the file when line is None.

    `old_path` is the file's base path (None for an added file); `old_line` is the base line
    of `line` when that line is unchanged context (None for an added or modified line).
    """

    key: str  # the marker key of the finding
    path: str
    body: str
    line: int | None = None
    start_line: int | None = None
    old_path: str | None = None
    old_line: int | None = None


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
class Annotation:
    """One finding on head lines start_line..end_line, for a status report."""

    path: str
    start_line: int
    end_line: int
    severity: Severity
    title: str
    message: str


Conclusion = Literal["success", "failure", "neutral"]


@dataclass(frozen=True)
class StatusReport:
    """The review's verdict on the head commit: a check run on GitHub, a commit status and a
    Code Quality report on GitLab."""

    name: str
    head: str
    conclusion: Conclusion
    title: str
    summary: str
    annotations: tuple[Annotation, ...] = ()


def status_annotations(result: ReviewResult) -> tuple[Annotation, ...]:
    """What the change made worse, worst first (pre-existing findings are noise)."""
    out = []
    for verdict in sorted(result.findings, key=priority):
        if verdict.scope not in COMMENTED_SCOPES:
            continue
        f = verdict.finding
        title = f"{f.tool} {f.rule} ({verdict.scope})".strip()
        out.append(Annotation(f.path, f.span.line, max(f.span.line, last_line(verdict)), f.severity,
                              title[:TITLE_LIMIT], f.message[:MESSAGE_LIMIT]))
    return tuple(out)


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
    @property
    def dialect(self) -> Dialect:
        """How this forge's comments fence suggestions, and how long a body may be."""
        ...

    def load(self) -> State:
        """The PR's head, state, our earlier comments (with thread state) and summary."""
        ...

    def diff_lines(self) -> Mapping[str, frozenset[int]]:
        """For each file of the PR as the forge reports it, the head lines a review comment
        may sit on (the lines inside its hunks); a file without a textual diff has none."""
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

    def check(self, report: StatusReport) -> bool:
        """Publish the status report; False when the token may not (the caller falls back)."""
        ...
