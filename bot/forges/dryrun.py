"""`--dry-run`: reads go to the forge when a token is given (else there is no tracking issue
yet), writes are printed as JSON lines on stdout and nothing is sent."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from bot.forges.base import PullRef
from bot.forges.repository import Access, Issue, Permission, Reaction, Repository


class RepositoryDryRun:
    def __init__(self, reads: Repository | None) -> None:
        self._reads = reads
        self._issues: dict[int, Issue] = {}

    def _print(self, what: str, **fields: Any) -> None:
        sys.stdout.write(json.dumps({"write": what, **fields}) + "\n")

    def reply(self, number: int, body: str) -> int:
        self._print("comment", issue=number, body=body)
        return 0

    def note(self, number: int, marker: str, body: str, *, create: bool = True) -> None:
        self._print("note", issue=number, marker=marker, body=body, create=create)

    def react(self, number: int, comment_id: int, reaction: Reaction) -> None:
        self._print("reaction", comment=comment_id, content=reaction)

    def access(self, login: str) -> Access:
        return self._reads.access(login) if self._reads else Access(login, Permission.NONE, False)

    def add_label(self, number: int, label: str) -> None:
        self._print("add-label", issue=number, label=label)

    def remove_label(self, number: int, label: str) -> None:
        self._print("remove-label", issue=number, label=label)

    def find_issue(self, marker: str, label: str | None = None) -> Issue | None:
        return self._reads.find_issue(marker, label) if self._reads else None

    def create_issue(self, title: str, body: str, labels: Sequence[str] = ()) -> Issue:
        self._print("create-issue", title=title, body=body, labels=list(labels))
        self._issues[0] = Issue(0, title, body, tuple(labels))
        return self._issues[0]

    def update_issue(self, number: int, *, title: str | None = None, body: str | None = None,
                     labels: Sequence[str] | None = None, open: bool | None = None) -> Issue:
        change = {k: v for k, v in {"title": title, "body": body, "open": open,
                                    "labels": list(labels) if labels is not None else None}.items()
                  if v is not None}
        self._print("update-issue", issue=number, **change)
        known = self._issues.get(number, Issue(number, "", ""))
        updated = Issue(number, known.title if title is None else title,
                        known.body if body is None else body, known.labels,
                        known.open if open is None else open)
        self._issues[number] = updated
        return updated

    def read_file(self, path: str, ref: str | None = None) -> bytes | None:
        return self._reads.read_file(path, ref) if self._reads else None


class NoPulls:
    """Without a token no pull request can be looked up."""

    def pull_of(self, sha: str) -> PullRef | None:
        return None
