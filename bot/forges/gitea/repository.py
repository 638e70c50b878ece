"""Gitea's (and Forgejo's) repository side (`repository.Repository`): replies, reactions,
permissions, labels and tracking issues, over `api.Api`.

Built from the repository alone (no pull request number). A pull request is an issue to
Gitea, so replies and labels go through the issue endpoints. Gitea's label endpoints take
label ids: names are mapped through `GET /labels`, and no label is ever created.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx

from bot.errors import BotError, Exit, NotFound
from bot.forges import meanwhile, replies, sticky
from bot.forges.gitea.api import Api, Settings
from bot.forges.gitea.limits import ACTIONS_USERS
from bot.forges.limits import server_wait
from bot.forges.repository import Access, Issue, Permission, Reaction, Repository, issue_edit
from bot.forges.transport import segment

NOTE_RETRIES = 3  # as the summary's (bot.forges.gitea.change)
# Gitea's reaction names (its default [ui] REACTIONS) for the protocol's.
REACTIONS: Mapping[Reaction, str] = {"eyes": "eyes", "rocket": "rocket", "confused": "confused",
                                     "-1": "-1", "+1": "+1"}
# `permission` of the collaborator-permission answer (Gitea's AccessMode names).
PERMISSIONS = {"owner": Permission.ADMIN, "admin": Permission.ADMIN, "write": Permission.WRITE,
               "read": Permission.READ, "none": Permission.NONE}


class GiteaRepository:
    def __init__(self, settings: Settings, *, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time,
                 http: httpx.BaseTransport | None = None, api: Api | None = None) -> None:
        self._api = api or Api(settings, sleep=sleep, clock=clock, http=http)
        self._labels: dict[str, int] | None = None

    def reply(self, number: int, body: str) -> int:
        comments = f"{self._api.repo}/issues/{number}/comments"

        def post(text: str) -> int:
            made = self._api.write("POST", comments, {"body": text})
            return int(made["id"]) if isinstance(made, dict) else 0

        def find(key: str) -> int | None:
            return replies.found(key, ((int(c["id"]), str(c.get("body") or ""))
                                       for c in self._api.list(comments, paged=False)))

        return replies.once(body, post, find)

    def note(self, number: int, marker: str, body: str, *, create: bool = True) -> None:
        comments = f"{self._api.repo}/issues/{number}/comments"

        def find() -> sticky.Sticky[None] | None:
            # Anybody can write the marker: only the bot's own comment is ours to edit.
            user = self._api.me().get("id")
            return next((sticky.Sticky(int(c["id"]), str(c.get("body") or ""), None)
                         for c in self._api.list(comments, paged=False)
                         if marker in str(c.get("body") or "")
                         and isinstance(c.get("user"), dict) and c["user"].get("id") == user),
                        None)

        def change(current: sticky.Sticky[None], text: str) -> sticky.Sticky[None]:
            self._api.write("PATCH", f"{self._api.repo}/issues/comments/{current.id}",
                            {"body": text}, idempotent=True)
            return sticky.Sticky(current.id, text, None)

        def post(text: str) -> sticky.Sticky[None] | None:
            made = self._api.write("POST", comments, {"body": text})
            return sticky.Sticky(int(made["id"]), text, None) if isinstance(made, dict) else None

        sticky.note(body, sticky.Writes(change, post, find, self._api.sleep,
                                        server_wait, NOTE_RETRIES, noun="comment"), create=create)

    def react(self, number: int, comment_id: int, reaction: Reaction) -> None:
        # Gitea answers 200 with the existing reaction when it is there already: repeatable.
        meanwhile.react("comment", comment_id, f"{reaction} reaction", lambda: self._api.write(
            "POST", f"{self._api.repo}/issues/comments/{comment_id}/reactions",
            {"content": REACTIONS[reaction]}, idempotent=True))

    def access(self, login: str) -> Access:
        me = str(self._api.me().get("login") or "")
        # Gitea's API user carries no bot flag: the bot is the token's own account, or the
        # account an Actions token acts as.
        bot = login.lower() == me.lower() or login.lower() in ACTIONS_USERS
        try:
            data = self._api.get(f"{self._api.repo}/collaborators/{segment(login)}/permission")
        except NotFound:  # not a user Gitea knows
            return Access(login, Permission.NONE, bot)
        return access_of(login, data if isinstance(data, dict) else {}, bot)

    def add_label(self, number: int, label: str) -> None:
        self._api.write("POST", f"{self._api.repo}/issues/{number}/labels",
                        {"labels": [self._label_id(label)]}, idempotent=True)

    def remove_label(self, number: int, label: str) -> None:
        carried = {str(x.get("name")): x.get("id") for x in self._api.list(
            f"{self._api.repo}/issues/{number}/labels", paged=False)}
        lid = carried.get(label)
        if not isinstance(lid, int):
            return  # not on the pull request: what was wanted
        with contextlib.suppress(NotFound):  # removed meanwhile
            self._api.write("DELETE", f"{self._api.repo}/issues/{number}/labels/{lid}",
                            idempotent=True)

    def read_file(self, path: str, ref: str | None = None) -> bytes | None:
        quoted = "/".join(segment(part) for part in path.split("/"))
        try:
            response = self._api.send_get(f"{self._api.repo}/raw/{quoted}",
                                          {"ref": ref} if ref else {})
        except NotFound:
            return None
        return response.content

    def find_issue(self, marker: str, label: str | None = None) -> Issue | None:
        query: dict[str, str] = {"state": "all", "type": "issues"}
        if label:
            query["labels"] = label
        found = [raw for raw in self._api.list(f"{self._api.repo}/issues", query)
                 if not raw.get("pull_request") and marker in str(raw.get("body") or "")]
        oldest = min(found, key=lambda raw: int(raw.get("number") or 0), default=None)
        return issue_of(oldest) if oldest is not None else None

    def create_issue(self, title: str, body: str, labels: Sequence[str] = ()) -> Issue:
        made = self._api.write("POST", f"{self._api.repo}/issues", {
            "title": title, "body": body, "labels": [self._label_id(x) for x in labels]})
        return issue_of(made if isinstance(made, dict) else {})

    def update_issue(self, number: int, *, title: str | None = None, body: str | None = None,
                     labels: Sequence[str] | None = None, open: bool | None = None) -> Issue:
        change = issue_edit(title, body, open)
        path = f"{self._api.repo}/issues/{number}"
        raw = (self._api.write("PATCH", path, change, idempotent=True) if change
               else self._api.get(path))
        raw = raw if isinstance(raw, dict) else {}
        if labels is not None:  # EditIssueOption has no labels: they are replaced on their own
            now = self._api.write("PUT", f"{path}/labels",
                                  {"labels": [self._label_id(x) for x in labels]},
                                  idempotent=True)
            raw = {**raw, "labels": now if isinstance(now, list) else []}
        return issue_of(raw)

    def _label_id(self, name: str) -> int:
        if self._labels is None:
            self._labels = {str(x.get("name")): int(x["id"])
                            for x in self._api.list(f"{self._api.repo}/labels")
                            if isinstance(x.get("id"), int)}
        lid = self._labels.get(name)
        if lid is None:
            raise BotError(f"the label {name!r} does not exist in {self._api.settings.repository}; "
                           "create it in the repository's labels (reviewbot creates none)",
                           Exit.USAGE)
        return lid


def access_of(login: str, data: Mapping[str, Any], bot: bool) -> Access:
    """The answer of the collaborator-permission endpoint as an `Access`."""
    return Access(login, PERMISSIONS.get(str(data.get("permission")), Permission.NONE), bot)


def issue_of(raw: Mapping[str, Any]) -> Issue:
    if not isinstance(raw.get("number"), int):
        raise BotError("Gitea answered an issue request without an issue", Exit.FORGE)
    labels = tuple(str(label["name"]) for label in raw.get("labels") or ()
                   if isinstance(label, Mapping) and "name" in label)
    return Issue(int(raw["number"]), str(raw.get("title") or ""), str(raw.get("body") or ""),
                 labels, raw.get("state") == "open")


def _is_repository(repository: GiteaRepository) -> Repository:
    """mypy checks here that `GiteaRepository` is a `Repository`."""
    return repository
