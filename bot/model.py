"""The project's value types: frozen dataclasses shared by every stage of the pipeline.

Positions are 1-based lines and 1-based columns counted in Unicode code points, with end
positions exclusive (`end_column` is one past the last character). Paths are repo-relative
POSIX strings. Conversions from tool-specific conventions (0-based, UTF-16, byte offsets)
happen in `bot.positions`, never here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from typing import Literal


class Severity(IntEnum):
    """Ordered so that `a > b` means "a is worse"."""

    INFO = 1
    WARNING = 2
    ERROR = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        key = text.strip().lower()
        aliases = {"information": "info", "hint": "info", "note": "info", "warn": "warning",
                   "fatal": "error", "err": "error"}
        return cls[aliases.get(key, key).upper()]


class Scope(StrEnum):
    """A finding's place against the merge base, in the order a reader meets them. The
    values are the wire format (artifacts, JSON and SARIF outputs): a `Scope` is its string.
    """

    INTRODUCED = "introduced"  # the change made it
    CHANGED = "changed"  # it was there, the change made it different (or worse)
    PREEXISTING = "preexisting"  # it was there and still is
    FIXED = "fixed"  # it was there at the merge base and the change removed it
    UNCLASSIFIED = "unclassified"  # no baseline to tell (the tool failed at the merge base)

    @property
    def commented(self) -> bool:
        """Worth a comment on the change: the change made it or made it different."""
        return self in (Scope.INTRODUCED, Scope.CHANGED)

    @property
    def fixable(self) -> bool:
        """Whose fixes `--fix` and the apply plan take: the change's own findings only."""
        return self in (Scope.INTRODUCED, Scope.CHANGED)

    @property
    def shown(self) -> bool:
        """Listed with an excerpt for a reader: the change's findings and those that could
        be (no baseline); not what was there before, not what went away."""
        return self in (Scope.INTRODUCED, Scope.CHANGED, Scope.UNCLASSIFIED)


Where = Literal["diff", "elsewhere"]


class Applicability(StrEnum):
    """How far a tool trusts its fix, from most to least (as ruff ranks them)."""

    SAFE = "safe"  # applied by `--fix`, offered as a suggestion
    UNSAFE = "unsafe"  # may change behaviour: applied only when asked for
    DISPLAY = "display"  # shown to a human, never applied

    @property
    def rank(self) -> int:
        """Higher is more trusted."""
        return {Applicability.SAFE: 2, Applicability.UNSAFE: 1, Applicability.DISPLAY: 0}[self]

    def applies(self, least: Applicability) -> bool:
        """Trusted at least as far as `least`."""
        return self.rank >= least.rank


class FailLevel(StrEnum):
    """The lowest severity a finding needs to fail the gate; `none` never fails it."""

    NONE = "none"
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"

    def gates(self, severity: Severity) -> bool:
        """Whether a finding of `severity` is at or above this level."""
        return self is not FailLevel.NONE and severity >= Severity[self.name]
ToolStatus = Literal["ok", "missing", "failed", "timeout", "skipped"]
FileStatus = Literal["added", "modified", "deleted", "renamed", "copied"]
ToolErrors = Literal["fail", "warn"]  # what a tool that could not check does to the gate
Side = Literal["base", "head"]


@dataclass(frozen=True, order=True)
class Span:
    """A range in one file: 1-based lines and columns, end exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class Edit:
    """Replace the text of `span` in `path` with `new_text` (an empty span inserts)."""

    path: str
    span: Span
    new_text: str


@dataclass(frozen=True)
class Fix:
    """A tool's fix for a finding: its edits and how safe they are to apply."""

    description: str
    edits: tuple[Edit, ...]
    applicability: Applicability = Applicability.SAFE

    def __post_init__(self) -> None:
        # A value given as its string (a hand-built fix) is the member: predicates work.
        object.__setattr__(self, "applicability", Applicability(self.applicability))


@dataclass(frozen=True)
class Finding:
    """One diagnostic as a tool reported it, normalised.

    `file_level` findings (no meaningful line) carry line 1 and are matched by message only.
    """

    tool: str
    rule: str
    severity: Severity
    message: str
    path: str
    span: Span
    url: str | None = None
    fix: Fix | None = None
    file_level: bool = False

    @property
    def line(self) -> int:
        return self.span.line

    @property
    def column(self) -> int:
        return self.span.column

    def sort_key(self) -> tuple[str, int, int, str, str, str, int, int, int, str, str]:
        """A total order over what tells findings apart, so no result depends on the order a
        tool printed them in."""
        return (self.path, self.span.line, self.span.column, self.tool, self.rule, self.message,
                self.span.end_line, self.span.end_column, -self.severity, self.url or "",
                self.fix.description if self.fix else "")


@dataclass(frozen=True)
class Verdict:
    """A finding with its scope against the merge base.

    For `fixed`, `finding` is the base finding and `base` is None. For a head finding with a
    base partner, `base` is that partner (its path and line are at the merge base).
    """

    finding: Finding
    scope: Scope
    fingerprint: str
    where: Where | None = None  # introduced findings only
    touched: bool = False  # preexisting/changed finding on a line the change touched
    base: Finding | None = None
    reasons: tuple[str, ...] = ()  # why "changed": message-args, message, severity-up, ...
    matched_by: str | None = None  # the matching pass (P1..P8) that paired it

    def __post_init__(self) -> None:
        object.__setattr__(self, "scope", Scope(self.scope))  # as for `Fix.applicability`

    @property
    def severity_up(self) -> bool:
        return "severity-up" in self.reasons


@dataclass(frozen=True)
class ToolRun:
    """What happened to one tool in one review (both revisions)."""

    name: str
    version: str | None
    status: ToolStatus
    message: str = ""
    # The revisions where it failed or timed out: at the head, the change went unchecked;
    # at the merge base only, the head's findings lack a baseline (unclassified).
    failed_at: tuple[Side, ...] = ()
    # Wall-clock seconds the review spent on it (finding its binary, both revisions); None
    # where no one measured (a result built by hand, an artifact from before timings).
    seconds: float | None = None


@dataclass(frozen=True)
class FileChange:
    """One file of the diff between the merge base and the head.

    `changed_lines` are head line numbers that are added or modified; `hunk_lines` are head
    line numbers inside a hunk of a default 3-line-context unified diff (what a forge lets
    a review comment sit on); `base_lines` maps the unchanged (context) lines among them to
    their base line numbers (a GitLab position names both).
    """

    path: str  # head path (base path for deleted files)
    old_path: str | None  # base path; None for added files
    status: FileStatus
    changed_lines: frozenset[int] = frozenset()
    hunk_lines: frozenset[int] = frozenset()
    binary: bool = False
    similarity: int | None = None  # rename score
    base_lines: Mapping[int, int] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class GatePolicy:
    """How the gate judges a review: the lowest severity that fails it, and whether a tool
    that could not check the change fails it too."""

    fail_level: FailLevel = FailLevel.ERROR
    tool_errors: ToolErrors = "fail"

    def __post_init__(self) -> None:
        object.__setattr__(self, "fail_level", FailLevel(self.fail_level))  # as for `Fix`

    def chosen(self, fail_level: str | None, tool_errors: str | None) -> GatePolicy:
        """This policy with the command line's choices on top (argparse checked both)."""
        return GatePolicy(FailLevel(fail_level) if fail_level else self.fail_level,
                          self.tool_errors if tool_errors is None else
                          "warn" if tool_errors == "warn" else "fail")


@dataclass(frozen=True)
class ReviewResult:
    """Everything the core review computed; renderers and forges only show this."""

    base_ref: str  # what the user named as the target
    merge_base: str  # full sha of the merge base
    head: str  # full sha of the head
    tools: tuple[ToolRun, ...]
    findings: tuple[Verdict, ...]  # head findings: introduced, changed, preexisting
    fixed: tuple[Verdict, ...]  # base findings with no partner
    changes: tuple[FileChange, ...] = ()
    notes: tuple[str, ...] = ()  # warnings for the reader (no baseline for X, ...)
    unbaselined: frozenset[str] = field(default_factory=frozenset)  # paths without a baseline
    # Changed files that were not analysed although they should have been (over a size cap):
    # "path: why". Unlike binary files or symbolic links, these leave the change unchecked.
    unchecked: tuple[str, ...] = ()
    policy: GatePolicy = field(default_factory=GatePolicy)

    def count(self, scope: Scope) -> int:
        if scope is Scope.FIXED:
            return len(self.fixed)
        return sum(1 for v in self.findings if v.scope == scope)


TriggerKind = Literal["review", "label", "comment", "sweep", "queue", "ignored"]


@dataclass(frozen=True)
class Trigger:
    """What started a CI run, in forge-neutral terms (built by one module per CI environment).

    `kind` is what the bot is asked to do: review a pull request, act on a label or a comment,
    sweep the default branch, gate a merge queue's group or a merge train's result (`queue`:
    `number` is the change it holds, `base_sha` what it is merged onto), or nothing
    (`ignored`, with `reason`).
    """

    forge: Literal["github", "gitlab", "gitea", "bitbucket", "azure"]
    event: str  # the CI's own name for it: pull_request, issue_comment, schedule, ...
    kind: TriggerKind
    action: str = ""  # the event's action: opened, synchronize, labeled, created, ...
    repository: str | None = None  # owner/name (GitLab: the project's full path)
    number: int | None = None  # the pull / merge request
    base_sha: str | None = None
    head_sha: str | None = None  # None where the event does not say (comments: ask the forge)
    target_ref: str | None = None  # the branch the change goes into, or the branch swept
    head_ref: str | None = None
    head_repository: str | None = None  # None when a fork was deleted
    open: bool = True
    draft: bool = False
    actor: str | None = None  # who caused the event
    actor_is_bot: bool = False
    comment_id: int | None = None
    comment_body: str | None = None
    comment_created_at: str | None = None  # ISO 8601, as the forge wrote it
    label: str | None = None
    reason: str = ""  # why an `ignored` trigger needs nothing
    actor_id: int | None = None  # the forge's id of `actor`, where the event names it (GitLab)
    # Labels the event added (a GitLab merge request update may add several at once).
    added_labels: tuple[str, ...] = ()

    @property
    def fork(self) -> bool:
        return self.head_repository != self.repository
