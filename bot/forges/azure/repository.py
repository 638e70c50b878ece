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
- The sweep's tracking issue is a work item (`Task` by default): title, description (the
  sweep's markdown kept as text, escaped in a <pre> block: Azure DevOps sanitizes the HTML
  of a description, and the sweep's state is an HTML comment), tags (`reviewbot` and the
  sweep's label) and state (open and closed per the process: settings). It is found again by
  a WIQL query on its tag and the marker in its description; a reply to it is a comment in
  its discussion (`System.History`).
"""

from __future__ import annotations

import contextlib
import html
import re
import time
from collections.abc import Callable, Collection, Sequence
from typing import Any

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
SWEEP_TAG = "reviewbot"  # every sweep work item carries it, with the sweep's label
JSON_PATCH = "application/json-patch+json"
PRE = re.compile(r"<pre>(.*)</pre>", re.S)


class AzureRepository:
    def __init__(self, settings: Settings, *, maintainers: Collection[str] = (),
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time,
                 http: httpx.BaseTransport | None = None, api: Api | None = None) -> None:
        self._api = api or Api(settings, sleep=sleep, clock=clock, http=http)
        self._maintainers = frozenset(m.strip().lower() for m in maintainers if m.strip())
        self._work_items: set[int] = set()  # the work items this run read or made

    def reply(self, number: int, body: str) -> int:
        if number in self._work_items:  # the sweep's work item: a comment in its discussion
            self._api.write("PATCH", f"/wit/workitems/{number}", limits.WORK_ITEMS,
                            [_set("System.History", _html(body))], content_type=JSON_PATCH)
            return number
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

        sticky.note(body, sticky.Writes(change, post, find, self._api.sleep,
                                        server_wait, NOTE_RETRIES, noun="thread"), create=create)

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
        """The oldest work item tagged `label` (else `reviewbot`) whose description holds
        `marker`: found by a WIQL query on the tag, then read one by one."""
        tag = (label or SWEEP_TAG).replace("'", "''")
        for number in self._api.query(
                "SELECT [System.Id] FROM WorkItems WHERE [System.TeamProject] = @project "
                f"AND [System.Tags] CONTAINS '{tag}' ORDER BY [System.Id]"):
            try:
                issue = self._work_item(number)
            except NotFound:  # deleted since the query
                continue
            if marker in issue.body:
                return issue
        return None

    def create_issue(self, title: str, body: str, labels: Sequence[str] = ()) -> Issue:
        kind = segment(self._api.settings.work_item_type)
        made = self._api.write("POST", f"/wit/workitems/${kind}", limits.WORK_ITEMS, [
            _set("System.Title", title), _set("System.Description", _html(body)),
            _set("System.Tags", _tags([SWEEP_TAG, *labels]))], content_type=JSON_PATCH)
        return self._issue_of(made)

    def update_issue(self, number: int, *, title: str | None = None, body: str | None = None,
                     labels: Sequence[str] | None = None, open: bool | None = None) -> Issue:
        """Change what is given (`labels` replaces the work item's tags); a work item is
        open in `open_state`, closed in `closed_state` (settings)."""
        settings = self._api.settings
        ops = [op for op in (
            _set("System.Title", title) if title is not None else None,
            _set("System.Description", _html(body)) if body is not None else None,
            _set("System.Tags", _tags([SWEEP_TAG, *labels])) if labels is not None else None,
            None if open is None else _set(
                "System.State", settings.open_state if open else settings.closed_state))
            if op is not None]
        if not ops:
            return self._work_item(number)
        made = self._api.write("PATCH", f"/wit/workitems/{number}", limits.WORK_ITEMS, ops,
                               idempotent=True, content_type=JSON_PATCH)
        return self._issue_of(made)

    def _work_item(self, number: int) -> Issue:
        return self._issue_of(self._api.get(f"/wit/workitems/{number}", limits.WORK_ITEMS))

    def _issue_of(self, raw: Any) -> Issue:
        fields = raw.get("fields") if isinstance(raw, dict) else None
        if not isinstance(raw, dict) or not isinstance(raw.get("id"), int) \
                or not isinstance(fields, dict):
            raise BotError("Azure DevOps answered a work item request without a work item",
                           Exit.FORGE)
        self._work_items.add(int(raw["id"]))
        tags = tuple(t.strip() for t in str(fields.get("System.Tags") or "").split(";")
                     if t.strip() and t.strip() != SWEEP_TAG)
        return Issue(int(raw["id"]), str(fields.get("System.Title") or ""),
                     _text(str(fields.get("System.Description") or "")), tags,
                     fields.get("System.State") != self._api.settings.closed_state)


def _set(field: str, value: str) -> dict[str, str]:
    """One JSON Patch operation that sets a work item's field (`add` replaces a value)."""
    return {"op": "add", "path": f"/fields/{field}", "value": value}


def _tags(names: Sequence[str]) -> str:
    return "; ".join(dict.fromkeys(n for n in names if n))


def _html(markdown: str) -> str:
    """A work item's description is HTML, which Azure DevOps sanitizes (an HTML comment,
    where the sweep keeps its state, would not survive): the text is kept as it is, escaped,
    in a <pre> block."""
    return f"<pre>{html.escape(markdown, quote=False)}</pre>"


def _text(description: str) -> str:
    found = PRE.fullmatch(description.strip())
    return html.unescape(found.group(1)) if found else description


def _is_repository(repository: AzureRepository) -> Repository:
    """mypy checks here that `AzureRepository` is a `Repository`."""
    return repository


