"""Azure DevOps's pull request: `AzureChange` implements `base.Change` for one pull
request, over `api.Api`.

What Azure DevOps does, and what is done about it:

- Each finding is one thread with a `threadContext` on the head file (`filePath` from `/`,
  `rightFileStart`..`rightFileEnd`: lines from 1, the end offset past the line's last
  character) and a `pullRequestThreadContext` naming the newest iteration and the file's
  `changeTrackingId`, so the thread follows the file through later pushes. A draft without a
  line is a thread on the file (a `threadContext` without positions). Azure DevOps takes a
  thread on any line of a file the pull request changes: `diff_lines` is every line of each
  changed file at the head.
- Our threads are found again by their property `reviewbot.fingerprint` and the hidden marker
  of their first comment. Azure DevOps's described API has no "who am I" for a pipeline's
  token, so the bot's identity is the author of its sticky summary thread (property
  `reviewbot.summary`), and before there is a summary a pipeline's identity (`Build\\<guid>`):
  a thread whose first comment someone else wrote is not ours. Azure DevOps lets only a
  comment's author edit it, which is the second guard.
- A fixed finding's thread gets the native status `fixed`, property `reviewbot.fixed` (the
  head it was fixed in), and its comment a line saying so; a finding that comes back reopens
  (`active`) only a thread the bot marked fixed: a person closing a thread is a decision.
- The conversation's part: the head's push is the iteration's `createdDate` (`moved_since`);
  a label records nobody (`labeled_by` is None: the apply trigger is `/apply`).
- No operation in the description deletes a thread: a duplicate thread (a write carried out
  twice) is closed, its property removed and its comment says it is a duplicate.
- The summary is a thread without a file, edited in place; the gate is a pull request status
  (`context.genre` `reviewbot`) on the newest iteration, which a branch policy can require;
  not sent again when the newest status of its context there already says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from bot.errors import BotError, Exit, NotFound, ReadOnly, Refused
from bot.forges import meanwhile, sticky
from bot.forges.azure import host, limits
from bot.forges.azure.api import Api, Settings
from bot.forges.azure.limits import DIALECT, FINGERPRINT, SUMMARY, THREADS
from bot.forges.base import (
    Actor,
    Change,
    Draft,
    Posted,
    PullRequest,
    Range,
    Rejected,
    State,
    StatusReport,
)
from bot.forges.change import marked_fixed, pull_number
from bot.forges.limits import server_wait
from bot.forges.repository import Permission
from bot.model import Trigger
from bot.render.dialect import Dialect
from bot.render.markdown import SUMMARY_MARKER, clip, parse_marker

RETRIES = 3
STATES = {"success": "succeeded", "failure": "failed", "neutral": "succeeded"}
FIXED = "reviewbot.fixed"
RESOLVED = ("fixed", "closed", "wontFix", "byDesign")
DUPLICATE = ("<sub>A duplicate of an earlier reviewbot thread on this line (a write Azure "
             "DevOps carried out twice); nothing to do here.</sub>")


@dataclass
class _Thread:
    id: int
    comment: int  # our first comment's id in the thread
    body: str
    status: str


class AzureChange:
    """One pull request (`base.Change`): `Settings.number`, or `number` when given."""

    dialect: Dialect = DIALECT
    name: Literal["azure"] = "azure"
    after_push = host.AFTER_PUSH
    author = host.AUTHOR

    def __init__(self, settings: Settings, *, number: int | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time,
                 http: httpx.BaseTransport | None = None, api: Api | None = None) -> None:
        self._number = pull_number(number, settings.number, "AzureChange")
        self._api = api or Api(settings, sleep=sleep, clock=clock, http=http)
        self._pull = self._api.pull(self._number)
        self._head: str | None = None
        self._ours: dict[str, _Thread] = {}  # our finding threads by Posted.id
        self._summary: tuple[int, int, str] | None = None  # thread, comment, body
        # The threads summary_body(keep=True) read, and the API's writes then: the next
        # load() takes them instead of listing them again, unless a write came between.
        self._kept: tuple[int, list[dict[str, Any]]] | None = None
        self._files: tuple[str, dict[str, tuple[int, list[str]]]] | None = None
        self._iteration: int | None = None

    @property
    def number(self) -> int:
        return self._number

    @property
    def api(self) -> Api:
        """The connection, to share with the repository side (`repository.py`)."""
        return self._api

    # -- reads -------------------------------------------------------------------------

    def _get_pull(self) -> dict[str, Any]:
        # The description spells this one path `pullrequests`; the service takes either.
        data = self._api.get(f"{self._api.repo}/pullrequests/{self._number}", limits.PULL)
        if not isinstance(data, dict) or not isinstance(data.get("lastMergeSourceCommit"), dict):
            raise BotError(f"Azure DevOps answered GET pull request {self._number} without "
                           "its source commit", Exit.FORGE)
        return data

    # -- the conversation's part -------------------------------------------------------

    def review_range(self, trigger: Trigger) -> Range:
        """The run's head against the target branch as the pipeline fetched it (the review
        takes their merge base): what `analyze` reviews too, without the API."""
        assert trigger.head_sha  # the runner names it for a review
        return Range(f"refs/remotes/origin/{trigger.target_ref or 'main'}", trigger.head_sha,
                     trigger.open)

    def moved_since(self, pr: PullRequest, trigger: Trigger) -> str | None:
        """Why `pr.head` may not be the head the comment was written against, or None.

        Decided by when Azure DevOps recorded the iteration (push) that made `pr.head` the
        head, against when it recorded the comment: never by commit dates, which whoever made
        the commit chose, nor by the run's variables, which whoever queues it sets."""
        found = self.of_head(pr.head)
        head = pr.head[:12]
        created = found.get("createdDate") if found else None
        if not isinstance(created, str):
            return (f"Azure DevOps lists no iteration with the head {head}, so it cannot be "
                    "told whether the command was written against it. Nothing was done.")
        when = host.moment(created)
        if trigger.comment_created_at is None or when >= host.moment(trigger.comment_created_at):
            return (f"The pull request's head moved to {head} after the comment was written "
                    f"(pushed {when:%Y-%m-%d %H:%M:%S} UTC). Nothing was done: check the new "
                    "head and comment again.")
        return None

    def head_ref(self, number: int) -> str:
        return host.head_refspec(number)

    def role(self, permission: Permission) -> str:
        return host.role(permission)

    def labeled_by(self, label: str) -> Actor | None:
        """Azure DevOps records no author of a label (tag): never an actor to trust."""
        return None

    def pull_request(self) -> PullRequest:
        """The pull request as Azure DevOps says now: head, base, branch. A pull request's
        source branch is in the same repository here: forks are not read."""
        data = self._get_pull()
        self._head = _commit(data.get("lastMergeSourceCommit"))
        found = data.get("repository")
        repo: dict[str, Any] = found if isinstance(found, dict) else {}
        name = self._api.settings.name
        fork = data.get("forkSource")
        return PullRequest(self._number, self._head, _commit(data.get("lastMergeTargetCommit")),
                           str(data.get("sourceRefName") or "").removeprefix("refs/heads/"),
                           None if fork else name,
                           str(repo.get("remoteUrl") or "") or None,
                           False, data.get("status") == "active", name)

    def target(self) -> str:
        """The branch the pull request goes into (`main`)."""
        return str(self._get_pull().get("targetRefName") or "").removeprefix("refs/heads/")

    def threads(self) -> list[dict[str, Any]]:
        return threads_of(self._api, self._number)

    def load(self) -> State:
        data = self._get_pull()
        head = _commit(data.get("lastMergeSourceCommit"))
        self._head = head
        kept, self._kept = self._kept, None
        threads = kept[1] if kept is not None and kept[0] == self._api.writes else self.threads()
        self._summary = _summary(threads)
        me = bot_identity(threads)
        self._ours = {}
        posted = []
        for thread in sorted(threads, key=lambda t: int(t.get("id") or 0)):
            comments = [c for c in thread.get("comments") or ()
                        if isinstance(c, dict) and not c.get("isDeleted")]
            if FINGERPRINT not in properties(thread) or not comments:
                continue
            first = min(comments, key=lambda c: int(c.get("id") or 0))
            body = str(first.get("content") or "")
            marker = parse_marker(body)
            if marker is None or not _ours(first.get("author"), me):
                continue
            tid = int(thread["id"])
            status = str(thread.get("status") or "active")
            pid = f"{tid}:{first['id']}"
            self._ours[pid] = _Thread(tid, int(first["id"]), body, status)
            context = thread.get("threadContext") or {}
            resolved = status in RESOLVED
            by_us = status == "fixed" and FIXED in properties(thread)
            replied = any(_id(c.get("author")) != _id(first.get("author"))
                          and c.get("commentType") != "system" for c in comments)
            posted.append(Posted(pid, marker.fingerprint, marker.digest,
                                 str(context.get("filePath") or "").lstrip("/"), str(tid),
                                 resolved, by_us, replied))
        return State(head, data.get("status") == "active", tuple(posted),
                     str(self._summary[0]) if self._summary else None)

    def summary_body(self, *, keep: bool = False) -> str | None:
        """The body of the summary thread the bot wrote, else None."""
        threads = self.threads()
        self._kept = (self._api.writes, threads) if keep else None
        self._summary = _summary(threads)
        return self._summary[2] if self._summary else None

    def iterations(self) -> list[dict[str, Any]]:
        """The pull request's iterations (pushes), oldest first."""
        return sorted((i for i in self._api.list(f"{self._pull}/iterations", THREADS)
                       if isinstance(i.get("id"), int)), key=lambda i: int(i["id"]))

    def of_head(self, head: str) -> dict[str, Any] | None:
        """The newest iteration whose source commit is `head`: the push that made it the
        pull request's head."""
        return next((i for i in reversed(self.iterations())
                     if _commit(i.get("sourceRefCommit")) == head), None)

    def iteration(self) -> int:
        """The newest iteration (push) of the pull request."""
        if self._iteration is None:
            found = [int(i["id"]) for i in self.iterations()]
            if not found:
                raise BotError(f"Azure DevOps lists no iteration of pull request "
                               f"{self._number}", Exit.FORGE)
            self._iteration = max(found)
        return self._iteration

    def changes(self) -> dict[str, tuple[int, str]]:
        """Each file the pull request changes at its newest iteration: its changeTrackingId
        and change type, by path (without the leading `/`)."""
        iteration = self.iteration()
        out: dict[str, tuple[int, str]] = {}
        skip = 0
        while True:
            page = self._api.get(f"{self._pull}/iterations/{iteration}/changes", THREADS,
                                 {"$top": limits.PAGE_SIZE, "$skip": skip})
            entries = page.get("changeEntries") if isinstance(page, dict) else None
            for entry in entries if isinstance(entries, list) else ():
                item = entry.get("item") if isinstance(entry, dict) else None
                if not isinstance(item, dict) or not isinstance(item.get("path"), str):
                    continue
                out[item["path"].lstrip("/")] = (int(entry.get("changeTrackingId") or 0),
                                                 str(entry.get("changeType") or ""))
            following = page.get("nextSkip") if isinstance(page, dict) else None
            if not isinstance(following, int) or following <= skip:
                return out
            skip = following

    def _head_files(self) -> dict[str, tuple[int, list[str]]]:
        """Each changed file at the head: its changeTrackingId and its lines."""
        head = self._head or _commit(self._get_pull().get("lastMergeSourceCommit"))
        if self._files is None or self._files[0] != head:
            files: dict[str, tuple[int, list[str]]] = {}
            for path, (tracking, kind) in self.changes().items():
                if "delete" in kind:
                    continue  # no head lines
                text = self._text(path, head)
                files[path] = (tracking, text.splitlines() if text is not None else [])
            self._files = (head, files)
        return self._files[1]

    def _text(self, path: str, commit: str) -> str | None:
        try:
            item = self._api.get(f"{self._api.repo}/items", limits.ITEMS, {
                "path": f"/{path}", "versionDescriptor.version": commit,
                "versionDescriptor.versionType": "commit", "includeContent": True})
        except NotFound:
            return None
        content = item.get("content") if isinstance(item, dict) else None
        return content if isinstance(content, str) else None

    def diff_lines(self) -> Mapping[str, frozenset[int]]:
        return {path: frozenset(range(1, len(lines) + 1))
                for path, (_, lines) in self._head_files().items()}

    # -- writes ------------------------------------------------------------------------

    def post(self, commit: str, body: str, drafts: Sequence[Draft]) -> list[Rejected]:
        """One thread per draft (Azure DevOps has no review holding several threads)."""
        files = self._head_files()
        rejected: list[Rejected] = []
        for draft in drafts:
            tracking, lines = files.get(draft.path, (0, []))
            if draft.path not in files:
                rejected.append(Rejected(draft, f"{draft.path} is not a file the pull "
                                                "request changes"))
                continue
            if draft.line is not None and not 1 <= draft.line <= len(lines):
                rejected.append(Rejected(draft, f"line {draft.line} of {draft.path} is past "
                                                "its end at the head"))
                continue
            try:
                self._thread(draft, tracking, lines)
            except Refused as exc:
                rejected.append(Rejected(draft, exc.message))
        return rejected

    def _thread(self, draft: Draft, tracking: int, lines: Sequence[str]) -> None:
        context: dict[str, Any] = {"filePath": f"/{draft.path}"}
        if draft.line is not None:
            start = draft.start_line or draft.line
            context["rightFileStart"] = {"line": start, "offset": 1}
            context["rightFileEnd"] = {"line": draft.line,
                                       "offset": len(lines[draft.line - 1]) + 1}
        iteration = self.iteration()
        marker = parse_marker(draft.body)
        self._api.write("POST", f"{self._pull}/threads", THREADS, {
            "comments": [{"parentCommentId": 0, "content": draft.body, "commentType": "text"}],
            "status": "active", "threadContext": context,
            "pullRequestThreadContext": {
                "changeTrackingId": tracking,
                "iterationContext": {"firstComparingIteration": 1,
                                     "secondComparingIteration": iteration}},
            "properties": {FINGERPRINT: marker.fingerprint if marker else draft.key}})

    def edit(self, comment: Posted, body: str) -> None:
        ours = self._ours.get(comment.id)
        if ours is None:
            return
        self._set_body(ours, body)

    def _set_body(self, ours: _Thread, body: str) -> None:
        try:
            self._api.write("PATCH", f"{self._pull}/threads/{ours.id}/comments/{ours.comment}",
                            THREADS, {"content": body}, idempotent=True)
        except NotFound:
            print(f"reviewbot: thread {ours.id} was deleted meanwhile; not edited")
            return
        ours.body = body

    def _set_thread(self, ours: _Thread, change: Mapping[str, Any]) -> None:
        self._api.write("PATCH", f"{self._pull}/threads/{ours.id}", THREADS, dict(change),
                        idempotent=True)

    def delete(self, comment: Posted) -> None:
        ours = self._ours.get(comment.id)
        if ours is None:
            return
        # No described operation deletes a thread: it stops being ours and is closed.
        meanwhile.delete(lambda: self._set_thread(
            ours, {"status": "closed", "properties": {FINGERPRINT: None}}))
        self._set_body(ours, DUPLICATE)

    def resolve(self, comment: Posted, resolved: bool) -> None:
        ours = self._ours.get(comment.id)
        if ours is None:
            return
        sha = (self._head or "")[:12]
        try:
            self._set_thread(ours, {"status": "fixed" if resolved else "active",
                                    "properties": {FIXED: sha if resolved else None}})
        except (Refused, NotFound) as exc:  # stays as it was; the next run tries again
            print(f"reviewbot: could not change thread {ours.id}'s status: {exc.message}")
            return
        text = marked_fixed(ours.body, sha if resolved else None)
        if text != ours.body:
            self._set_body(ours, text)

    def summary(self, state: State, body: str) -> None:
        current = None if self._summary is None else sticky.Sticky(
            self._summary[0], self._summary[2], self._summary[1])
        made = sticky.keep(body, current, self._summary_writes())
        self._summary = None if made is None else (made.id, made.handle, made.body)

    def _summary_writes(self) -> sticky.Writes[int]:
        def edit(current: sticky.Sticky[int], body: str) -> sticky.Sticky[int]:
            self._api.write("PATCH", f"{self._pull}/threads/{current.id}/comments/"
                            f"{current.handle}", THREADS, {"content": body}, idempotent=True)
            return sticky.Sticky(current.id, body, current.handle)

        def post(body: str) -> sticky.Sticky[int] | None:
            made = self._api.write("POST", f"{self._pull}/threads", THREADS, {
                "comments": [{"parentCommentId": 0, "content": body, "commentType": "text"}],
                "properties": {SUMMARY: "1"}})
            if not isinstance(made, dict) or not made.get("comments"):
                return None
            return sticky.Sticky(int(made["id"]), body, int(made["comments"][0]["id"]))

        def find() -> sticky.Sticky[int] | None:
            found = _summary(self.threads())
            return None if found is None else sticky.Sticky(found[0], found[2], found[1])

        return sticky.Writes(edit, post, find, self._api.sleep, server_wait, RETRIES,
                             noun="summary thread")

    def check(self, report: StatusReport) -> bool:
        """The report as a pull request status on the newest iteration (`context.name` its
        name, `genre` reviewbot, `description` its title). A status holds no long text: the
        summary and the findings are in the threads and the job log."""
        data: dict[str, Any] = {
            "state": STATES[report.conclusion],
            "description": clip(report.title, limits.DESCRIPTION_LIMIT),
            "context": {"name": report.name, "genre": limits.GENRE}}
        if self._api.settings.target_url:
            data["targetUrl"] = self._api.settings.target_url
        try:
            data["iterationId"] = self.iteration()
            if self._status_says(data):  # a re-run with the same verdict
                return True
            # A status is a state: sending it twice only adds a row saying the same.
            self._api.write("POST", f"{self._pull}/statuses", limits.PULL, data,
                            idempotent=True)
        except ReadOnly as exc:
            print(f"reviewbot: cannot set a pull request status ({exc.message})")
            return False
        return True

    def _status_says(self, data: Mapping[str, Any]) -> bool:
        ours = [s for s in self._api.list(f"{self._pull}/statuses", limits.PULL)
                if s.get("context") == data["context"]
                and s.get("iterationId") == data["iterationId"]]
        latest = max(ours, key=lambda s: int(s.get("id") or 0), default=None)
        return latest is not None and all(
            str(latest.get(k) or "") == str(data.get(k) or "")
            for k in ("state", "description", "targetUrl"))


def _commit(ref: Any) -> str:
    return str(ref.get("commitId") or "") if isinstance(ref, dict) else ""


def _id(identity: Any) -> str | None:
    value = identity.get("id") if isinstance(identity, dict) else None
    return value if isinstance(value, str) else None


def _ours(author: Any, me: str | None) -> bool:
    """Whether a comment's author is the bot: the summary's author once there is a summary;
    before, a pipeline's identity (`Build\\<guid>`), never a person's."""
    if me is not None:
        return _id(author) == me
    name = author.get("uniqueName") if isinstance(author, dict) else None
    return isinstance(name, str) and name.startswith("Build\\")


def properties(thread: Mapping[str, Any]) -> Mapping[str, Any]:
    """A thread's properties (an open map of the service's `PropertiesCollection`)."""
    found = thread.get("properties")
    return found if isinstance(found, dict) else {}


def threads_of(api: Api, number: int) -> list[dict[str, Any]]:
    """The threads of pull request `number` that are not deleted, oldest first."""
    return sorted((t for t in api.list(f"{api.pull(number)}/threads", THREADS)
                   if not t.get("isDeleted") and isinstance(t.get("id"), int)),
                  key=lambda t: int(t["id"]))


def first_comment(thread: Mapping[str, Any]) -> dict[str, Any] | None:
    comments = [c for c in thread.get("comments") or ()
                if isinstance(c, dict) and isinstance(c.get("id"), int)]
    return min(comments, key=lambda c: int(c["id"]), default=None)


def _summary(threads: Sequence[Mapping[str, Any]]) -> tuple[int, int, str] | None:
    """The oldest thread with the summary property whose first comment holds the summary's
    marker: thread id, comment id, body."""
    for thread in threads:
        first = first_comment(thread)
        if SUMMARY in properties(thread) and first is not None \
                and SUMMARY_MARKER in str(first.get("content") or ""):
            return int(thread["id"]), int(first["id"]), str(first.get("content") or "")
    return None


def bot_identity(threads: Sequence[Mapping[str, Any]]) -> str | None:
    """The bot's identity id: who wrote the summary thread (None before there is one).
    Azure DevOps's described API has no "who am I" for a pipeline's token."""
    summary = _summary(threads)
    if summary is None:
        return None
    thread = next(t for t in threads if t.get("id") == summary[0])
    first = first_comment(thread)
    return _id(first.get("author")) if first else None


def _is_change(change: AzureChange) -> Change:
    """mypy checks here that `AzureChange` is a `Change`: every member, every signature."""
    return change


__all__ = ["AzureChange", "Settings"]
