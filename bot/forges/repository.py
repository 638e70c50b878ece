"""The Repository protocol: what commands, labels and sweeps need from a forge beyond one
review: reply and react to comments, read who may command the bot, change a pull request's
labels, keep a tracking issue. It needs no pull request number to be built.

Values in and out are plain dataclasses; SDK objects never leave a forge module. Writes that
are not idempotent (a reply, a new issue) raise `Uncertain` after a 5xx or a timeout: the
caller looks before writing again (`find_issue` finds an issue by its hidden marker).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Literal, Protocol

Reaction = Literal["eyes", "rocket", "confused", "-1", "+1"]


class Permission(IntEnum):
    """A user's access to the repository, ordered so that `a >= Permission.WRITE` reads well."""

    NONE = 0
    READ = 1
    TRIAGE = 2
    WRITE = 3
    MAINTAIN = 4
    ADMIN = 5

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True)
class Access:
    login: str
    permission: Permission
    bot: bool  # the account is a bot (an app, or a GitHub Actions token)

    @property
    def may_write(self) -> bool:
        return self.permission >= Permission.WRITE


@dataclass(frozen=True)
class Issue:
    number: int
    title: str
    body: str
    labels: tuple[str, ...] = ()
    open: bool = True


class Repository(Protocol):
    def reply(self, number: int, body: str) -> int:
        """A new comment on pull request `number` (answering a command); its id."""
        ...

    def react(self, number: int, comment_id: int, reaction: Reaction) -> None:
        """React to a comment on pull request `number`; reacting twice is one reaction."""
        ...

    def access(self, login: str) -> Access:
        """What `login` may do here; a user the forge does not know has Permission.NONE."""
        ...

    def add_label(self, number: int, label: str) -> None: ...

    def remove_label(self, number: int, label: str) -> None:
        """Remove a label; a no-op when the pull request does not carry it."""
        ...

    def find_issue(self, marker: str, label: str | None = None) -> Issue | None:
        """The oldest issue (open or closed) whose body holds `marker`, among those carrying
        `label` when given."""
        ...

    def create_issue(self, title: str, body: str, labels: Sequence[str] = ()) -> Issue: ...

    def update_issue(self, number: int, *, title: str | None = None, body: str | None = None,
                     labels: Sequence[str] | None = None, open: bool | None = None) -> Issue:
        """Change what is given; `labels` replaces the issue's labels."""
        ...

    def read_file(self, path: str, ref: str | None = None) -> bytes | None:
        """A file's bytes at `ref` (default: the default branch); None when it is not there.
        What a job that checks nothing out trusts: the repository's own settings."""
        ...

    def note(self, number: int, marker: str, body: str, *, create: bool = True) -> None:
        """One comment on change `number` that holds the hidden `marker` (in `body`): the
        one the bot's own account wrote edited in place, else a new one posted (`create`
        False: none posted). A re-run edits rather than adds (the merge queue's word on a
        pull request)."""
        ...


def issue_edit(title: str | None, body: str | None, open: bool | None) -> dict[str, str]:
    """What an issue edit changes, as GitHub's and Gitea's APIs name it (`state`: open or
    closed); nothing for what is None."""
    change = {"title": title, "body": body,
              "state": None if open is None else "open" if open else "closed"}
    return {k: v for k, v in change.items() if v is not None}
