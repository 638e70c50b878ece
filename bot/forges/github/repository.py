"""GitHub's repository side (`repository.Repository`): replies, reactions, permissions,
labels and tracking issues, over the REST API through `github_api.Api`.

Built from the repository alone (no pull request number). A pull request is an issue to
GitHub, so replies and labels go through the issue endpoints.
"""

from __future__ import annotations

import base64
import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

from bot.errors import BotError, Exit, NotFound
from bot.forges import meanwhile, replies, sticky
from bot.forges.github import own
from bot.forges.github.api import RETRIES, Api, Settings
from bot.forges.limits import server_wait
from bot.forges.repository import Access, Issue, Permission, Reaction, issue_edit

# The finest grant first: `user.permissions` names maintain and triage, which the legacy
# `permission` field folds into write and read.
FLAGS = (("admin", Permission.ADMIN), ("maintain", Permission.MAINTAIN), ("push", Permission.WRITE),
         ("triage", Permission.TRIAGE), ("pull", Permission.READ))
NAMES = {"admin": Permission.ADMIN, "maintain": Permission.MAINTAIN, "write": Permission.WRITE,
         "triage": Permission.TRIAGE, "read": Permission.READ, "none": Permission.NONE}


class GitHubRepository:
    def __init__(self, settings: Settings, *, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time, api: Api | None = None) -> None:
        self._api = api or Api(settings, sleep=sleep, clock=clock)

    def reply(self, number: int, body: str) -> int:
        url = f"{self._api.url}/issues/{number}/comments"

        def post(text: str) -> int:
            _, data = self._api.request("POST", url, body={"body": text})
            return int(data["id"])

        def find(key: str) -> int | None:
            return replies.found(key, ((int(c["id"]), str(c.get("body") or ""))
                                       for c in self._api.list(url)))

        return replies.once(body, post, find)

    def react(self, number: int, comment_id: int, reaction: Reaction) -> None:
        # GitHub answers 200 with the existing reaction when it is there already: repeatable.
        meanwhile.react("comment", comment_id, f"{reaction} reaction", lambda: self._api.request(
            "POST", f"{self._api.url}/issues/comments/{comment_id}/reactions",
            body={"content": reaction}, idempotent=True))

    def access(self, login: str) -> Access:
        try:
            _, data = self._api.request(
                "GET", f"{self._api.url}/collaborators/{quote(login, safe='')}/permission")
        except NotFound:  # not a user GitHub knows
            return Access(login, Permission.NONE, login.endswith("[bot]"))
        return access_of(login, data)

    def add_label(self, number: int, label: str) -> None:
        self._api.request("POST", f"{self._api.url}/issues/{number}/labels",
                          body={"labels": [label]}, idempotent=True)

    def remove_label(self, number: int, label: str) -> None:
        with contextlib.suppress(NotFound):  # not on the pull request: what was wanted
            self._api.request("DELETE",
                              f"{self._api.url}/issues/{number}/labels/{quote(label, safe='')}",
                              idempotent=True)

    def read_file(self, path: str, ref: str | None = None) -> bytes | None:
        try:
            _, data = self._api.request("GET", f"{self._api.url}/contents/{quote(path)}",
                                        parameters={"ref": ref} if ref else None)
        except NotFound:
            return None
        if not isinstance(data, dict) or data.get("type") != "file":
            return None  # a folder (a list) or a link is not a settings file
        if data.get("encoding") != "base64" or not isinstance(data.get("content"), str):
            raise BotError(f"GitHub returned {path} in an encoding reviewbot cannot read "
                           f"({data.get('encoding')})", Exit.FORGE)
        return base64.b64decode(data["content"])

    def note(self, number: int, marker: str, body: str, *, create: bool = True) -> None:
        url = f"{self._api.url}/issues/{number}/comments"

        def find() -> sticky.Sticky[None] | None:
            # As the summary is found (`own`): the reviewers are read only when no bot's is.
            marked = [c for c in self._api.list(url) if marker in (c.get("body") or "")]
            found = None if not marked else (own.first_ours(marked, ())
                                             or own.first_ours(marked, self._reviewers(number)))
            return None if found is None else sticky.Sticky(int(found["id"]),
                                                            str(found.get("body") or ""), None)

        def change(current: sticky.Sticky[None], text: str) -> sticky.Sticky[None]:
            self._api.request("PATCH", f"{self._api.url}/issues/comments/{current.id}",
                              body={"body": text}, idempotent=True)
            return sticky.Sticky(current.id, text, None)

        def post(text: str) -> sticky.Sticky[None] | None:
            _, data = self._api.request("POST", url, body={"body": text})
            return sticky.Sticky(int(data["id"]), text, None)

        sticky.note(body, sticky.Writes(change, post, find, self._api.sleep,
                                        server_wait, RETRIES, noun="comment"), create=create)

    def _reviewers(self, number: int) -> frozenset[str]:
        """Who wrote our review comments on pull request `number` (none on an issue)."""
        try:
            return own.reviewers(self._api.list(f"{self._api.url}/pulls/{number}/comments"))
        except NotFound:
            return frozenset()

    def find_issue(self, marker: str, label: str | None = None) -> Issue | None:
        parameters = {"state": "all", "sort": "created", "direction": "asc",
                      **({"labels": label} if label else {})}
        for raw in self._api.list(f"{self._api.url}/issues", parameters):
            # The issues list holds pull requests too.
            if "pull_request" not in raw and marker in (raw.get("body") or ""):
                return issue_of(raw)
        return None

    def create_issue(self, title: str, body: str, labels: Sequence[str] = ()) -> Issue:
        _, data = self._api.request("POST", f"{self._api.url}/issues",
                                    body={"title": title, "body": body, "labels": list(labels)})
        return issue_of(data)

    def update_issue(self, number: int, *, title: str | None = None, body: str | None = None,
                     labels: Sequence[str] | None = None, open: bool | None = None) -> Issue:
        change: dict[str, Any] = dict(issue_edit(title, body, open))
        if labels is not None:
            change["labels"] = list(labels)
        _, data = self._api.request("PATCH", f"{self._api.url}/issues/{number}", body=change,
                                    idempotent=True)
        return issue_of(data)


def access_of(login: str, data: Mapping[str, Any]) -> Access:
    """The answer of the collaborator-permission endpoint as an `Access`."""
    user = _mapping(data.get("user"))
    flags = _mapping(user.get("permissions"))
    permission = next((p for key, p in FLAGS if flags.get(key)), None)
    if permission is None:  # role_name may be a custom role's name: then the legacy field
        permission = NAMES.get(str(data.get("role_name")),
                               NAMES.get(str(data.get("permission")), Permission.NONE))
    return Access(login, permission, user.get("type") == "Bot" or login.endswith("[bot]"))


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def issue_of(raw: Mapping[str, Any]) -> Issue:
    labels = tuple(str(label["name"]) if isinstance(label, Mapping) else str(label)
                   for label in raw.get("labels") or ())
    return Issue(int(raw["number"]), str(raw.get("title") or ""), str(raw.get("body") or ""),
                 labels, raw.get("state") == "open")
