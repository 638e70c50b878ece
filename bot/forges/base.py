"""The protocols every forge package (`github/`, `gitlab/`, `gitea/`) implements, and the
values they exchange with the flows:

- `Change`: one pull (merge) request, one value per forge: what the publish step needs
  (our earlier comments, the review, the summary, the status report) and what a conversation
  needs (where its head is now, when it moved, the bot's own summary, the forge's names for
  roles);
- `Repository` (`repository.py`): replies, reactions, permissions, labels, issues;
- `Pulls`: the change a commit came in with (the sweep's attribution);
- `Connection`: all of them for one run, built by the CI's runner (`bot.ci`).

Values in and out are plain dataclasses; SDK objects never leave a forge package. Every
member is required: a forge that cannot do something does a documented no-op.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from bot.forges.repository import Permission, Repository
from bot.model import Severity, Trigger
from bot.render.dialect import Dialect


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


@dataclass(frozen=True)
class PullRequest:
    """The change as the forge says now (a pull request, or a merge request's latest version)."""

    number: int
    head: str
    base: str
    head_ref: str
    head_repository: str | None  # None: the fork was deleted
    clone_url: str | None
    maintainer_can_modify: bool
    open: bool
    repository: str
    # Who added each label the change carries, where the forge's label event names no label
    # (Gitea sends the labels after any change, a removal too): the login of the newest entry
    # of that label when it is an addition. None: the event names its label.
    labeled_by: Mapping[str, str] | None = None

    @property
    def fork(self) -> bool:
        return self.head_repository != self.repository

    @property
    def can_push(self) -> bool:
        """Whether the bot may push to the head branch: its own repository's, or a fork's
        that allows edits by maintainers."""
        return not self.fork or (self.head_repository is not None and self.maintainer_can_modify)


@dataclass(frozen=True)
class Actor:
    login: str
    bot: bool


@dataclass(frozen=True)
class Range:
    """What a review of the change compares: its base and head, and whether it is open."""

    base: str
    head: str
    open: bool


class Change(Protocol):
    """One change on its forge: what the publish step needs (`load`, `diff_lines`, `post`,
    `edit`, `delete`, `resolve`, `summary`, `check`) and what a conversation needs beyond it
    (`pull_request`, `review_range`, `moved_since`, `head_ref`, `summary_body`, `role`,
    `labeled_by`)."""

    @property
    def name(self) -> Literal["github", "gitlab", "gitea", "bitbucket", "azure"]: ...

    @property
    def after_push(self) -> str:
        """What the reply after a push adds: whether the push starts a run of its own."""
        ...

    @property
    def author(self) -> str:
        """The apply commit's author when `apply: {author: …}` names none."""
        ...

    def review_range(self, trigger: Trigger) -> Range:
        """The base and head a review of the trigger's change compares (GitHub: the event's;
        GitLab: the merge request's latest diff version)."""
        ...

    def pull_request(self) -> PullRequest:
        """The change as the forge says now (its head, base, branch, and fork)."""
        ...

    def moved_since(self, pr: PullRequest, trigger: Trigger) -> str | None:
        """Why `pr.head` is not the head the trigger's comment was written against, or None."""
        ...

    def head_ref(self, number: int) -> str:
        """The ref the forge mirrors the change's head to (a fork's head too)."""
        ...

    def summary_body(self, *, keep: bool = False) -> str | None:
        """The body of the summary comment the bot's own account wrote, or None. `keep`: the
        publish step that follows, with nothing written in between, may reuse this read."""
        ...

    def role(self, permission: Permission) -> str:
        """The forge's own name for an access level."""
        ...

    def labeled_by(self, label: str) -> Actor | None:
        """Who added `label` to the change, when the change carries it now (else None): what
        a publish job that did not see the label's event (a `workflow_run`) asks the forge.
        Forges whose label events always reach a trusted job (GitLab's webhook pipelines,
        Gitea's) answer None: that job takes the actor from its own event."""
        ...

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


@dataclass(frozen=True)
class PullRef:
    number: int
    author: str | None  # the login that opened it
    merged: bool


class Pulls(Protocol):
    def pull_of(self, sha: str) -> PullRef | None:
        """The change a commit came in with (merged first, then by number), or None (a push
        straight to the branch)."""
        ...


@dataclass(frozen=True)
class Connection:
    """One run's forge, as the CI's runner connected it; sends no request to be built.

    `change` exists when the run is about one change. `push_env` holds the
    credentials for one git process (fetch, push), never written to a config file.
    `recorded` is set on a dry run: the writes the forge did not send, in order.
    """

    repository_name: str  # owner/name, or GitLab's project path
    repository: Repository
    pulls: Pulls
    change_prefix: str  # how a change is linked in text: #7, !7
    change: Change | None = None
    push_env: Mapping[str, str] = field(default_factory=dict)
    recorded: Sequence[Mapping[str, object]] | None = None
    sleep: Callable[[float], None] = time.sleep  # the forge's own pacing (waits for a new head)
