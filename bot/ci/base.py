"""The CI seam: one `Runner` per CI (GitHub Actions, GitLab CI, Gitea and Forgejo Actions),
the only place CI variables and credentials are read.

A runner owns the run's trigger, its checkout, its token and the connection to the forge
(`connect` returns a `bot.forges.base.Connection`: values, no callbacks), and writes what the
CI shows besides the forge: annotations, the job summary, warnings.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Literal, Protocol

from bot.errors import BotError, Exit
from bot.forges.base import Annotation, Connection, Range
from bot.model import Trigger, TriggerKind


class Runner(Protocol):
    @property
    def forge(self) -> Literal["github", "gitlab", "gitea", "bitbucket", "azure"]: ...

    @property
    def change_name(self) -> str:
        """How the job log names a change: `PR #`, `MR !`."""
        ...

    @property
    def enable_comments(self) -> str:
        """What to do when the token may not write to the change."""
        ...

    @property
    def checkout_hint(self) -> str:
        """How to make the checkout hold the change's commits."""
        ...

    def trigger(self) -> Trigger:
        """What this run was started for; BotError (usage) for a malformed event."""
        ...

    def in_change_event(self) -> bool:
        """Whether this run was started for a change (a pull or merge request event): then
        `analyze` takes the change from it, else from --base/--head."""
        ...

    def analysed_range(self, trigger: Trigger) -> Range | None:
        """The change's base and head as the run names them, without the API: what `analyze`
        reviews. None when the event does not say (a GitHub comment): then the forge is asked,
        with the job's read-only token."""
        ...

    def exposed_token(self) -> str | None:
        """The name of a write token's variable set in this job, if any (`analyze` runs the
        change's code and should see none)."""
        ...

    def checkout(self, given: Path | None) -> Path:
        """The repository's checkout: `given`, else the CI's workspace, else the cwd."""
        ...

    def token(self, given: str | None) -> str:
        """The token to use: `given`, else the CI's own variable; "" when there is none (a
        forge whose token is never optional raises BotError, usage, naming the variable)."""
        ...

    def publishing(self, repository: str | None, number: int | None, head: str,
                   label: bool = False) -> Trigger:
        """The change an analysis artifact (of `repository`, change `number`, at `head`) is
        published to, checked against this run; BotError (usage) naming what disagrees.
        `label`: the artifact is of the apply label's analysis, published on a later event
        that did not see the label's (a `workflow_run`): a label trigger whose actor the
        publish step asks the forge for."""
        ...

    def clone_url(self, repository: str) -> str:
        """Where git fetches and pushes `repository` (owner/name or a project path)."""
        ...

    def connect(self, trigger: Trigger, token: str | None, *, dry_run: bool = False
                ) -> Connection:
        """The forge for `trigger` with `token` (else the CI's own token variable); a dry run
        records its writes. BotError (usage) when no token is at hand and one is needed."""
        ...

    def unhandled(self, trigger: Trigger, handled: Collection[TriggerKind]) -> str:
        """One line: this event needs nothing, and which events do."""
        ...

    def annotate(self, annotations: Sequence[Annotation]) -> None: ...

    def job_summary(self, text: str) -> None: ...

    def warn(self, text: str) -> None: ...





def event_range(trigger: Trigger) -> Range | None:
    """The change's base and head as its event names them; None when it names no commit (a
    comment): then the forge is asked."""
    if not (trigger.base_sha and trigger.head_sha):
        return None
    return Range(trigger.base_sha, trigger.head_sha, trigger.open)


def answered(trigger: Trigger, repository: str | None, number: int | None, head: str) -> Trigger:
    """`trigger`, the event an analysis artifact (of `repository`, change `number`, at `head`)
    must answer: a review, a comment's commands, a label on that change, or the gate of a merge
    queue's group or merge train holding it. A comment names no head: its session checks the
    artifact's head against the change's head now."""
    if trigger.kind not in ("review", "comment", "label", "queue") or trigger.number is None:
        raise BotError(f"`reviewbot publish` has nothing to publish for this event: "
                       f"{trigger.reason or trigger.event}", Exit.USAGE)
    expected_head = trigger.head_sha if trigger.kind != "comment" else head
    for field, found, expected in (("repository", repository, trigger.repository),
                                   ("change", number, trigger.number),
                                   ("head", head, expected_head)):
        if found != expected:
            raise BotError(f"the analysis is of {field} {found}, but this run's event is of "
                           f"{expected}: publish only the artifact of this run's `analyze` job",
                           Exit.USAGE)
    return trigger
