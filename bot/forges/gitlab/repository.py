"""GitLab's project side (`repository.Repository`) over the shared client: notes as replies,
award emoji as reactions, members/all access levels as permissions, merge request labels,
issues."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote

from bot.errors import BotError, Exit, NotFound, Refused
from bot.forges import replies, sticky
from bot.forges.gitlab.client import OFF, RETRIES, Client, author
from bot.forges.gitlab.notes import defuse
from bot.forges.limits import server_wait
from bot.forges.repository import Access, Issue, Permission, Reaction


@dataclass(frozen=True)
class RepositorySettings:
    api_url: str
    token: str
    project: str
    timeout: float = 30.0
    # Replies go to merge request notes (commands) or to issue notes (the sweep's issue).
    replies: Literal["merge_requests", "issues"] = "merge_requests"


# The Repository protocol's reactions by GitLab's emoji names.
EMOJI = {"eyes": "eyes", "rocket": "rocket", "confused": "confused", "-1": "thumbsdown",
         "+1": "thumbsup"}
# Access levels (GitLab's members API): Guest 10, Planner 15, Reporter 20, Developer 30,
# Maintainer 40, Owner 50.
LEVELS = ((50, Permission.ADMIN, "Owner"), (40, Permission.MAINTAIN, "Maintainer"),
          (30, Permission.WRITE, "Developer"), (20, Permission.TRIAGE, "Reporter"),
          (10, Permission.READ, "Guest"))
ROLES = {p: name for _, p, name in LEVELS}


class GitLabRepository(Client):
    """The project side (`repository.Repository`): notes as replies, award emoji as reactions,
    members/all access levels as permissions, merge request labels, issues.

    `users` are ids the caller already knows by username (a webhook payload names both), so
    `access` needs no user search for them."""

    def __init__(self, settings: RepositorySettings, *, users: Mapping[str, int] | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time) -> None:
        super().__init__(settings.api_url, settings.token, settings.project, settings.timeout,
                         sleep, clock)
        self._replies = settings.replies
        self._users = dict(users or {})

    def reply(self, number: int, body: str) -> int:
        notes = f"{self._project}/{self._replies}/{number}/notes"

        def post(text: str) -> int:
            made = self._write("POST", notes, data={"body": text})
            return int(made["id"]) if isinstance(made, dict) else 0

        def find(key: str) -> int | None:
            return replies.found(key, ((int(n["id"]), str(n.get("body") or "")) for n in
                                       self._list(notes, {"sort": "desc", "order_by": "created_at"})))

        return replies.once(defuse(body), post, find)

    def note(self, number: int, marker: str, body: str, *, create: bool = True) -> None:
        notes = f"{self._project}/merge_requests/{number}/notes"

        def find() -> sticky.Sticky[None] | None:
            # Anybody can write the marker: only the bot's own note is ours to edit.
            mine = self.me()
            return next((sticky.Sticky(int(n["id"]), str(n.get("body") or ""), None)
                         for n in self._list(notes, {"sort": "asc", "order_by": "created_at"})
                         if marker in str(n.get("body") or "") and author(n) == mine), None)

        def change(current: sticky.Sticky[None], text: str) -> sticky.Sticky[None]:
            self._write("PUT", f"{notes}/{current.id}", data={"body": text}, idempotent=True)
            return sticky.Sticky(current.id, text, None)

        def post(text: str) -> sticky.Sticky[None] | None:
            made = self._write("POST", notes, data={"body": text})
            return sticky.Sticky(int(made["id"]), text, None) if isinstance(made, dict) else None

        sticky.note(defuse(body), sticky.Writes(change, post, find, self._sleep,
                                                server_wait, RETRIES, noun="note"), create=create)

    def react(self, number: int, comment_id: int, reaction: Reaction) -> None:
        try:
            # Awarding twice is refused ("has already been taken"): sending it again is harmless.
            self._write("POST",
                        f"{self._project}/merge_requests/{number}/notes/{comment_id}/award_emoji",
                        data={"name": EMOJI[reaction]}, idempotent=True)
        except NotFound as exc:
            if "already been taken" not in exc.message:  # the note deleted: the run goes on
                print(f"reviewbot: note {comment_id} was deleted meanwhile; no {reaction} award")
        except Refused as exc:
            if "already been taken" not in exc.message:
                raise

    def access(self, login: str) -> Access:
        uid = self._users.get(login)
        if uid is None:
            found = self._list("/users", {"username": login})
            if not found:
                return Access(login, Permission.NONE, False)
            uid = int(found[0]["id"])
        if uid == self.me():
            return Access(login, Permission.NONE, True)  # the bot itself
        try:
            user = self._get(f"/users/{uid}")
        except NotFound:
            return Access(login, Permission.NONE, False)
        try:
            level = int(self._get(f"{self._project}/members/all/{uid}").get("access_level") or 0)
        except NotFound:  # not a member of the project (nor of its groups)
            level = 0
        permission = next((p for least, p, _ in LEVELS if level >= least), Permission.NONE)
        return Access(login, permission, bool(user.get("bot")))

    def add_label(self, number: int, label: str) -> None:
        self._write("PUT", f"{self._project}/merge_requests/{number}",
                    data={"add_labels": label}, idempotent=True)

    def remove_label(self, number: int, label: str) -> None:
        # remove_labels takes only the names given: the merge request's other labels stay.
        self._write("PUT", f"{self._project}/merge_requests/{number}",
                    data={"remove_labels": label}, idempotent=True)

    def read_file(self, path: str, ref: str | None = None) -> bytes | None:
        query = {"ref": ref} if ref else {}
        if not ref:
            query["ref"] = str(self._get(self._project).get("default_branch") or "HEAD")
        try:
            data = self._call(lambda: self._gl.http_get(
                f"{self._project}/repository/files/{quote(path, safe='')}/raw",
                query_data=query, raw=True, **OFF), write=False)
        except NotFound:
            return None
        content = getattr(data, "content", None)
        return content if isinstance(content, bytes) else None

    def find_issue(self, marker: str, label: str | None = None) -> Issue | None:
        query = {"order_by": "created_at", "sort": "asc", **({"labels": label} if label else {})}
        for raw in self._list(f"{self._project}/issues", query):
            if marker in str(raw.get("description") or ""):
                return _issue(raw)
        return None

    def create_issue(self, title: str, body: str, labels: Sequence[str] = ()) -> Issue:
        data = {"title": title, "description": defuse(body), "labels": ",".join(labels)}
        made = self._write("POST", f"{self._project}/issues", data=data)
        return _issue(made if isinstance(made, dict) else {})

    def update_issue(self, number: int, *, title: str | None = None, body: str | None = None,
                     labels: Sequence[str] | None = None, open: bool | None = None) -> Issue:
        change: dict[str, Any] = {}
        if title is not None:
            change["title"] = title
        if body is not None:
            change["description"] = defuse(body)
        if labels is not None:
            change["labels"] = ",".join(labels)
        if open is not None:
            change["state_event"] = "reopen" if open else "close"
        made = self._write("PUT", f"{self._project}/issues/{number}", data=change,
                           idempotent=True)
        return _issue(made if isinstance(made, dict) else {})

    def merge_request_of(self, sha: str) -> tuple[int, str | None, bool] | None:
        """The merge request a commit came in with (merged first, then by number): its iid,
        its author's username and whether it was merged; None for a direct push."""
        try:
            found = self._list(f"{self._project}/repository/commits/{sha}/merge_requests")
        except NotFound:
            return None
        mrs = sorted(((int(m["iid"]), _username(m.get("author")), m.get("state") == "merged")
                      for m in found if isinstance(m.get("iid"), int)),
                     key=lambda m: (not m[2], m[0]))
        return mrs[0] if mrs else None


def role(permission: Permission) -> str:
    """GitLab's name for an access level."""
    return ROLES.get(permission, "no role")


def _issue(raw: Mapping[str, Any]) -> Issue:
    if not isinstance(raw.get("iid"), int):
        raise BotError("GitLab answered an issue request without an issue", Exit.FORGE)
    return Issue(int(raw["iid"]), str(raw.get("title") or ""), str(raw.get("description") or ""),
                 tuple(str(x) for x in raw.get("labels") or ()), raw.get("state") == "opened")


def _username(user: Any) -> str | None:
    name = user.get("username") if isinstance(user, dict) else None
    return name if isinstance(name, str) else None


# python-gitlab's own retries off, on every request (ours are `_call`'s).
