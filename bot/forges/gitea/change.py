"""Gitea's (and Forgejo's) pull request: `GiteaChange` implements `base.Change` for one pull
request, over `api.Api` (its conversation's data, role names and the like, is `host.py`).

What Gitea does, and what is done about it:

- Review comments go out as ONE review (`POST /pulls/{index}/reviews`, event COMMENT), each
  on one head line (`new_position`, a line number despite its name). Gitea stores a comment
  on a line outside the diff where nobody sees it, so every draft is checked against the
  pull request's diff as Gitea reports it (`GET /pulls/{index}.diff`) and refused here,
  never sent. Gitea has no file-level review comment: such drafts are refused too (the
  publish flow moves them to the summary).
- Our comments are found by their hidden markers in the reviews' comments, written by the
  token's own account (`GET /user`). A thread is the comments on one path and line: someone
  else's comment there is a reply. `resolver` says whether a thread is resolved.
- `edit` is `PATCH /issues/comments/{id}`, which Gitea applies to review comments too (an
  older Gitea answers 204 without editing: said in the log). `DELETE /issues/comments/{id}`
  answers 204 without deleting a review comment, so a duplicate is removed with its whole
  review (`DELETE /pulls/{index}/reviews/{id}`) once every comment of that review is one to
  delete; until then its body loses its marker and says it is a duplicate. Gitea stores a
  reply in the review it answers, so a review someone answered in is never deleted.
- `resolve` uses `POST /pulls/{index}/comments/{id}/resolve` (and `/unresolve`) where the
  server has it: Gitea 1.26 and later (`GET /version`). Elsewhere (older Gitea, Forgejo) a
  fixed finding's comment is marked by editing its body: a struck-through "open" and the
  head it was fixed in, under a hidden marker that `load` reads as resolved by us.
- The summary is an issue comment by the bot's account, edited in place; the gate is a
  commit status, not sent again when the newest status of its context already says so.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, Literal

import httpx

from bot.errors import BotError, Exit, NotFound, ReadOnly, Refused
from bot.forges import meanwhile, sticky
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
from bot.forges.change import FIXED_MARKER, event_range, marked_fixed, pull_number
from bot.forges.gitea import host, timeline
from bot.forges.gitea.api import Api, Settings
from bot.forges.gitea.limits import ACTIONS_USERS, DESCRIPTION_LIMIT, DIALECT, RESOLVE_SINCE
from bot.forges.limits import server_wait
from bot.forges.repository import Permission
from bot.forges.transport import Request
from bot.model import Trigger
from bot.render.dialect import Dialect
from bot.render.markdown import SUMMARY_MARKER, clip, parse_marker
from bot.revisions.diff import parse_patch

RETRIES = 3
STATES = {"success": "success", "failure": "failure", "neutral": "success"}
DUPLICATE = ("<sub>A duplicate of an earlier reviewbot comment on this line (a write Gitea "
             "carried out twice); nothing to do here.</sub>")


@dataclass
class _Ours:
    review: int
    body: str


class GiteaChange:
    """One pull request (`bot.forges.base.Change`): `Settings.number`, or `number` when given."""

    name: Literal["gitea"] = "gitea"
    dialect: Dialect = DIALECT
    after_push = host.AFTER_PUSH

    def __init__(self, settings: Settings, *, number: int | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time,
                 http: httpx.BaseTransport | None = None, api: Api | None = None,
                 forgejo: bool = False, labels: bool = False) -> None:
        """`labels`: a label event's run, which needs to know who added each label
        (`timeline.py`)."""
        self.author = host.author(forgejo)
        self._labels = labels
        self._number = pull_number(number, settings.number, "GiteaChange")
        self._api = api or Api(settings, sleep=sleep, clock=clock, http=http)
        self._pull = f"{self._api.repo}/pulls/{self._number}"
        self._head: str | None = None
        self._ours: dict[str, _Ours] = {}  # our review comments by id
        self._reviews: dict[int, set[str]] = {}  # every comment id of each review of ours
        self._deleted: set[str] = set()
        self._summary: tuple[int, str] | None = None  # comment id, body
        # The issue's comments summary_body(keep=True) read, and the API's writes then: the
        # next load() takes them instead of listing them again, unless a write came between.
        self._kept: tuple[int, list[dict[str, Any]]] | None = None
        self._lines: tuple[str, dict[str, frozenset[int]]] | None = None  # head, diff lines

    @property
    def number(self) -> int:
        return self._number

    @property
    def api(self) -> Api:
        """The connection, to share with the repository side (`repository.py`)."""
        return self._api

    # -- the conversation ----------------------------------------------------------------

    def review_range(self, trigger: Trigger) -> Range:
        return event_range(trigger)

    def pull_request(self) -> PullRequest:
        pull = self._read_pull()
        if not self._labels:
            return pull
        return replace(pull, labeled_by=timeline.read(self._api, pull.number))

    def head_ref(self, number: int) -> str:
        return host.head_refspec(number)

    def role(self, permission: Permission) -> str:
        return host.role(permission)

    def labeled_by(self, label: str) -> Actor | None:
        """Who added `label`, from the issue timeline (Gitea's label event names no label)."""
        login = timeline.read(self._api, self._number).get(label)
        return Actor(login, login.lower() in ACTIONS_USERS) if login else None

    # -- reads -------------------------------------------------------------------------

    def _get_pull(self) -> dict[str, Any]:
        data = self._api.get(self._pull)
        if not isinstance(data, dict) or not isinstance(data.get("head"), dict):
            raise BotError(f"Gitea answered GET pull request #{self._number} without one",
                           Exit.FORGE)
        return data

    def _read_pull(self) -> PullRequest:
        """The pull request as Gitea says now: head, base, branch, fork."""
        data = self._get_pull()
        head, base = data["head"], data.get("base") or {}
        repo = head.get("repo") if isinstance(head.get("repo"), dict) else None
        self._head = str(head.get("sha") or "")
        return PullRequest(self._number, self._head, str(base.get("sha") or ""),
                           str(head.get("ref") or ""),
                           str(repo["full_name"]) if repo and repo.get("full_name") else None,
                           str(repo["clone_url"]) if repo and repo.get("clone_url") else None,
                           bool(data.get("allow_maintainer_edit")), data.get("state") == "open",
                           self._api.settings.repository)

    def load(self) -> State:
        data = self._get_pull()
        head = str(data["head"].get("sha") or "")
        self._head = head
        me = self._api.me()
        mine = _user_id(me)
        reviews = self._api.list(f"{self._pull}/reviews")
        comments: list[dict[str, Any]] = []
        self._ours, self._reviews = {}, {}
        for review in reviews:
            rid = review.get("id")
            if not isinstance(rid, int) or review.get("state") == "PENDING":
                continue
            try:
                found = self._api.list(f"{self._pull}/reviews/{rid}/comments", paged=False)
            except NotFound:  # deleted since the list was read
                continue
            comments += found
            if _user_id(review.get("user")) == mine:
                self._reviews[rid] = {str(c.get("id")) for c in found}
        comments.sort(key=lambda c: int(c.get("id") or 0))
        posted = []
        for comment in comments:
            body = str(comment.get("body") or "")
            marker = parse_marker(body)
            if marker is None or _user_id(comment.get("user")) != mine:
                continue
            cid = str(comment["id"])
            self._ours[cid] = _Ours(int(comment.get("pull_request_review_id") or 0), body)
            resolver = comment.get("resolver")
            fixed = FIXED_MARKER in body
            resolved = fixed or isinstance(resolver, dict)
            by_us = fixed or (isinstance(resolver, dict) and _user_id(resolver) == mine)
            place = _place(comment)
            replied = any(_place(c) == place and _user_id(c.get("user")) != mine
                          for c in comments)
            posted.append(Posted(cid, marker.fingerprint, marker.digest,
                                 str(comment.get("path") or ""), cid, resolved, by_us, replied))
        kept, self._kept = self._kept, None
        issue = kept[1] if kept is not None and kept[0] == self._api.writes \
            else self._issue_comments()
        self._summary = _summary_of(issue, mine)
        return State(head, data.get("state") == "open", tuple(posted),
                     str(self._summary[0]) if self._summary else None)

    def summary_body(self, *, keep: bool = False) -> str | None:
        """The body of the summary comment the bot's own account wrote, else None."""
        mine = _user_id(self._api.me())
        issue = self._issue_comments()
        self._kept = (self._api.writes, issue) if keep else None
        self._summary = _summary_of(issue, mine)
        return self._summary[1] if self._summary else None

    def _issue_comments(self) -> list[dict[str, Any]]:
        """The pull request's comments outside the diff, where the summary is."""
        return self._api.list(f"{self._api.repo}/issues/{self._number}/comments", paged=False)

    def diff_lines(self) -> Mapping[str, frozenset[int]]:
        head = self._head or str(self._get_pull()["head"].get("sha") or "")
        if self._lines is None or self._lines[0] != head:
            response = self._api.send_get(f"{self._pull}.diff")
            lines = {}
            for patch in parse_patch(response.content):
                if patch.new_path is None:
                    continue  # deleted: no head lines
                lines[patch.new_path] = frozenset(
                    n for hunk in patch.hunks
                    for n in range(hunk.new_start, hunk.new_start + hunk.new_count))
            self._lines = (head, lines)
        return self._lines[1]

    def moved_since(self, pr: PullRequest, trigger: Trigger) -> str | None:
        """Why `pr.head` may not be the head a comment was written against, or None.

        Decided by when Gitea recorded the push that made `pr.head` the branch's tip (the
        head repository's activity feed, a `commit_repo` entry), never by commit dates, which
        whoever made the commit chose. No such entry (feeds off, or pruned): nobody can tell,
        and the caller refuses.
        """
        when, comment_created_at = self.arrived(pr), trigger.comment_created_at
        head = pr.head[:12]
        if when is None:
            return (f"Gitea's activity feed does not say when the head {head} arrived, so it "
                    "cannot be told whether the command was written against it. Nothing was done.")
        if comment_created_at is None or when >= _time(comment_created_at):
            return (f"The pull request's head moved to {head} after the comment was written "
                    f"(pushed {when:%Y-%m-%d %H:%M:%S} UTC). Nothing was done: check the new head "
                    "and comment again.")
        return None

    def arrived(self, pr: PullRequest) -> datetime | None:
        """When Gitea recorded the push that made `pr.head` the head branch's tip."""
        if pr.head_repository is None:
            return None
        owner, _, name = pr.head_repository.partition("/")
        try:
            feeds = self._api.list(f"/repos/{owner}/{name}/activities/feeds")
        except NotFound:
            return None
        refs = (pr.head_ref, f"refs/heads/{pr.head_ref}")
        times = [_time(str(f["created"])) for f in feeds
                 if f.get("op_type") == "commit_repo" and f.get("ref_name") in refs
                 and isinstance(f.get("created"), str) and _pushed_tip(f.get("content")) == pr.head]
        return max(times, default=None)

    # -- writes ------------------------------------------------------------------------

    def post(self, commit: str, body: str, drafts: Sequence[Draft]) -> list[Rejected]:
        lines = self.diff_lines()
        rejected: list[Rejected] = []
        sendable: list[Draft] = []
        for draft in drafts:
            if draft.line is None:
                rejected.append(Rejected(draft, "Gitea has no file-level review comments"))
            elif draft.line not in lines.get(draft.path, frozenset()):
                rejected.append(Rejected(draft, f"line {draft.line} of {draft.path} is outside "
                                                "Gitea's diff of the pull request"))
            else:
                sendable.append(draft)
        return rejected + self._review(commit, body, sendable)

    def _review(self, commit: str, body: str, drafts: Sequence[Draft]) -> list[Rejected]:
        """One review; a refused one is split to find the comments Gitea refuses."""
        if not drafts:
            return []
        try:
            self._api.write("POST", f"{self._pull}/reviews", {
                "commit_id": commit, "body": body, "event": "COMMENT",
                "comments": [{"path": d.path, "body": d.body, "new_position": d.line}
                             for d in drafts]})
            return []
        except Refused as exc:
            if len(drafts) == 1:
                return [Rejected(drafts[0], exc.message)]
        middle = len(drafts) // 2
        return self._review(commit, body, drafts[:middle]) + self._review(commit, body, drafts[middle:])

    def edit(self, comment: Posted, body: str) -> None:
        if comment.id not in self._ours:
            return
        self._set_body(comment.id, body)

    def _set_body(self, cid: str, body: str) -> None:
        try:
            response = self._api.send(Request("PATCH", f"{self._api.repo}/issues/comments/{cid}",
                                              body={"body": body}, idempotent=True))
        except NotFound:
            print(f"reviewbot: comment {cid} was deleted meanwhile; not edited")
            return
        if response.status == 204:  # Gitea before review comments could be edited
            print(f"reviewbot: Gitea did not edit review comment {cid} (it answered 204)")
            return
        self._ours[cid].body = body

    def delete(self, comment: Posted) -> None:
        ours = self._ours.get(comment.id)
        if ours is None:
            return
        self._deleted.add(comment.id)
        review = self._reviews.get(ours.review, set())
        if review and review <= self._deleted:
            meanwhile.delete(lambda: self._api.write(
                "DELETE", f"{self._pull}/reviews/{ours.review}", idempotent=True))
            return
        # Its review holds comments to keep: the duplicate stops being ours (no marker).
        self._set_body(comment.id, DUPLICATE)

    def resolve(self, comment: Posted, resolved: bool) -> None:
        ours = self._ours.get(comment.id)
        if ours is None:
            return
        if self._has_resolve():
            action = "resolve" if resolved else "unresolve"
            try:
                self._api.write("POST", f"{self._pull}/comments/{comment.id}/{action}",
                                idempotent=True)
            except (Refused, NotFound) as exc:  # stays as it was; the next run tries again
                print(f"reviewbot: could not {action} a conversation: {exc.message}")
            return
        text = marked_fixed(ours.body, (self._head or "") if resolved else None)
        if text != ours.body:
            self._set_body(comment.id, text)

    def _has_resolve(self) -> bool:
        version = self._api.version()
        return not self._api.forgejo and version[:2] >= RESOLVE_SINCE

    def summary(self, state: State, body: str) -> None:
        current = None if self._summary is None else sticky.Sticky(*self._summary, None)
        made = sticky.keep(body, current, self._summary_writes())
        self._summary = None if made is None else (made.id, made.body)

    def _summary_writes(self) -> sticky.Writes[None]:
        def edit(current: sticky.Sticky[None], body: str) -> sticky.Sticky[None]:
            self._api.write("PATCH", f"{self._api.repo}/issues/comments/{current.id}",
                            {"body": body}, idempotent=True)
            return sticky.Sticky(current.id, body, None)

        def post(body: str) -> sticky.Sticky[None] | None:
            made = self._api.write("POST", f"{self._api.repo}/issues/{self._number}/comments",
                                   {"body": body})
            return sticky.Sticky(int(made["id"]), body, None) if isinstance(made, dict) else None

        def find() -> sticky.Sticky[None] | None:
            found = _summary_of(self._issue_comments(), _user_id(self._api.me()))
            return None if found is None else sticky.Sticky(*found, None)

        return sticky.Writes(edit, post, find, self._api.sleep, server_wait, RETRIES)

    def check(self, report: StatusReport) -> bool:
        """The report as a commit status on the head (`context` is its name, `description`
        its title). A status holds no long text: the summary and the annotations are in the
        summary comment and the job log."""
        data = {"state": STATES[report.conclusion], "context": report.name,
                "description": clip(report.title, DESCRIPTION_LIMIT)}
        if self._api.settings.target_url:
            data["target_url"] = self._api.settings.target_url
        try:
            if self._status_says(report.head, data):  # a re-run with the same verdict
                return True
            # A status is a state: sending it twice only adds a row saying the same.
            self._api.write("POST", f"{self._api.repo}/statuses/{report.head}", data,
                            idempotent=True)
        except ReadOnly as exc:
            print(f"reviewbot: cannot set a commit status ({exc.message})")
            return False
        return True

    def _status_says(self, sha: str, data: Mapping[str, str]) -> bool:
        statuses = [s for s in self._api.list(f"{self._api.repo}/statuses/{sha}")
                    if s.get("context") == data["context"]]
        latest = max(statuses, key=lambda s: int(s.get("id") or 0), default=None)
        return latest is not None and latest.get("status") == data["state"] and all(
            str(latest.get(k) or "") == data.get(k, "") for k in ("description", "target_url"))


def _user_id(user: Any) -> int | None:
    value = user.get("id") if isinstance(user, dict) else None
    return value if isinstance(value, int) else None


def _summary_of(comments: Sequence[Mapping[str, Any]], mine: int | None
                ) -> tuple[int, str] | None:
    # Anybody can write the marker: only the bot's own comment is ours to edit.
    for comment in comments:
        body = str(comment.get("body") or "")
        if SUMMARY_MARKER in body and _user_id(comment.get("user")) == mine:
            return int(comment["id"]), body
    return None


def _place(comment: Mapping[str, Any]) -> tuple[str, int]:
    """Where a review comment sits as Gitea groups a conversation: its path and line (a base
    line, `original_position`, counted negative as Gitea stores it)."""
    new = comment.get("position")
    if isinstance(new, int) and new > 0:
        return str(comment.get("path") or ""), new
    old = comment.get("original_position")
    return str(comment.get("path") or ""), -old if isinstance(old, int) else 0


def _pushed_tip(content: Any) -> str | None:
    """The tip a `commit_repo` activity's push left: its HeadCommit, else its newest commit."""
    try:
        data = json.loads(content) if isinstance(content, str) else None
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    head = data.get("HeadCommit")
    if isinstance(head, dict) and isinstance(head.get("Sha1"), str):
        return str(head["Sha1"])
    commits = data.get("Commits")
    first = commits[0] if isinstance(commits, list) and commits else None
    return str(first["Sha1"]) if isinstance(first, dict) and isinstance(first.get("Sha1"), str) \
        else None


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _is_change(change: GiteaChange) -> Change:
    """mypy checks here that `GiteaChange` is a `Change`: every member, every signature."""
    return change
