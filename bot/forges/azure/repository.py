"""Azure DevOps's repository side (`repository.Repository`): replies, permissions, labels,
notes and a file at a revision, over `api.Api`.

- A reply is a new thread on the pull request (no file); a note is a thread found again by
  its property `reviewbot.note` and its marker, edited in place.
- Reactions: Azure DevOps's comments have likes, not reactions, and the description cut for
  the bot has no operation for them: `react` is a no-op (the reply says what happened).
- Permission: no described operation reads another identity's permission on a repository,
  and a label records nobody. The rule (docs/azure-devops.md): an identity may command the
  bot when the pipeline's own settings name it (`REVIEWBOT_AZURE_MAINTAINERS`, unique names
  or ids, set in the pipeline's YAML on the default branch, never at queue time); anyone
  else has no access. An unknown permission is never read as one.
- Sweeps keep no tracking item on Azure DevOps yet: the described work item operations find
  nothing by text (a query needs WIQL), so `find_issue` says so (see docs/azure-devops.md).
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Callable, Collection, Sequence

import httpx

from bot.errors import BotError, Exit, NotFound
from bot.forges import replies, sticky
from bot.forges.azure import limits
from bot.forges.azure.api import Api, Settings
from bot.forges.azure.change import bot_identity, first_comment, properties, threads_of
from bot.forges.limits import server_wait
from bot.forges.repository import Access, Issue, Permission, Reaction, Repository
from bot.forges.transport import segment

NOTE_RETRIES = 3  # as the summary's (bot.forges.azure.change)
SHA = re.compile(r"[0-9a-f]{40}")
# How Azure DevOps names a pipeline's own identity (the project's or the collection's Build
# Service): `Build\<guid>`.
BUILD_IDENTITY = re.compile(r"Build\\[0-9a-fA-F-]{36}")
SWEEP_HINT = ("reviewbot sweep keeps no tracking item on Azure DevOps yet "
              "(docs/azure-devops.md, section 5)")


class AzureRepository:
    def __init__(self, settings: Settings, *, maintainers: Collection[str] = (),
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time,
                 http: httpx.BaseTransport | None = None, api: Api | None = None) -> None:
        self._api = api or Api(settings, sleep=sleep, clock=clock, http=http)
        self._maintainers = frozenset(m.strip().lower() for m in maintainers if m.strip())

    def reply(self, number: int, body: str) -> int:
        path = f"{self._api.pull(number)}/threads"

        def post(text: str) -> int:
            made = self._api.write("POST", path, limits.THREADS, {
                "comments": [{"parentCommentId": 0, "content": text, "commentType": "text"}]})
            return int(made["id"]) if isinstance(made, dict) else 0

        def find(key: str) -> int | None:
            return replies.found(key, (
                (int(t["id"]), str((first_comment(t) or {}).get("content") or ""))
                for t in threads_of(self._api, number)))

        return replies.once(body, post, find)

    def note(self, number: int, marker: str, body: str, *, create: bool = True) -> None:
        path = f"{self._api.pull(number)}/threads"

        def find() -> sticky.Sticky[int] | None:
            threads = threads_of(self._api, number)
            me = bot_identity(threads)
            for thread in threads:
                first = first_comment(thread)
                if first is None or limits.NOTE not in properties(thread):
                    continue
                author = first.get("author")
                content = str(first.get("content") or "")
                if marker in content and (me is None or (
                        isinstance(author, dict) and author.get("id") == me)):
                    return sticky.Sticky(int(thread["id"]), content, int(first["id"]))
            return None

        def change(current: sticky.Sticky[int], text: str) -> sticky.Sticky[int]:
            self._api.write("PATCH", f"{path}/{current.id}/comments/{current.handle}",
                            limits.THREADS, {"content": text}, idempotent=True)
            return sticky.Sticky(current.id, text, current.handle)

        def post(text: str) -> sticky.Sticky[int] | None:
            made = self._api.write("POST", path, limits.THREADS, {
                "comments": [{"parentCommentId": 0, "content": text, "commentType": "text"}],
                "properties": {limits.NOTE: "1"}})
            if not isinstance(made, dict) or not made.get("comments"):
                return None
            return sticky.Sticky(int(made["id"]), text, int(made["comments"][0]["id"]))

        current = find()
        if current is None and not create:
            return
        sticky.keep(body, current, sticky.Writes(change, post, find, self._api.sleep,
                                                server_wait, NOTE_RETRIES, noun="thread"))

    def react(self, number: int, comment_id: int, reaction: Reaction) -> None:
        """A no-op: Azure DevOps's comments have no reactions (see the module's docstring)."""

    def access(self, login: str) -> Access:
        bot = BUILD_IDENTITY.fullmatch(login) is not None
        if login.strip().lower() in self._maintainers:
            return Access(login, Permission.MAINTAIN, bot)
        return Access(login, Permission.NONE, bot)

    def add_label(self, number: int, label: str) -> None:
        # Azure DevOps adds a label once, whatever the number of requests: repeatable.
        self._api.write("POST", f"{self._api.pull(number)}/labels", limits.THREADS,
                        {"name": label}, idempotent=True)

    def remove_label(self, number: int, label: str) -> None:
        carried = {str(x.get("name")).lower() for x in self._api.list(
            f"{self._api.pull(number)}/labels", limits.THREADS)}
        if label.lower() not in carried:
            return  # not on the pull request: what was wanted
        with contextlib.suppress(NotFound):  # removed meanwhile
            self._api.write("DELETE", f"{self._api.pull(number)}/labels/{segment(label)}",
                            limits.THREADS, idempotent=True)

    def labels(self, number: int) -> tuple[str, ...]:
        """The labels (tags) pull request `number` carries now."""
        return tuple(str(x.get("name")) for x in self._api.list(
            f"{self._api.pull(number)}/labels", limits.THREADS) if x.get("name"))

    def read_file(self, path: str, ref: str | None = None) -> bytes | None:
        query: dict[str, str | bool] = {"path": f"/{path.lstrip('/')}", "includeContent": True}
        if ref:
            query["versionDescriptor.version"] = ref.removeprefix("refs/heads/")
            query["versionDescriptor.versionType"] = "commit" if SHA.fullmatch(ref) else "branch"
        try:
            item = self._api.get(f"{self._api.repo}/items", limits.ITEMS, query)
        except NotFound:
            return None
        content = item.get("content") if isinstance(item, dict) else None
        return content.encode() if isinstance(content, str) else None

    def find_issue(self, marker: str, label: str | None = None) -> Issue | None:
        raise BotError(SWEEP_HINT, Exit.USAGE)

    def create_issue(self, title: str, body: str, labels: Sequence[str] = ()) -> Issue:
        raise BotError(SWEEP_HINT, Exit.USAGE)

    def update_issue(self, number: int, *, title: str | None = None, body: str | None = None,
                     labels: Sequence[str] | None = None, open: bool | None = None) -> Issue:
        raise BotError(SWEEP_HINT, Exit.USAGE)


def _is_repository(repository: AzureRepository) -> Repository:
    """mypy checks here that `AzureRepository` is a `Repository`."""
    return repository


