"""Bitbucket Cloud's pull request: `BitbucketChange` implements `base.Change` for one pull
request, over `api.Api` (its conversation's data, role names and the like, is `host.py`).

What Bitbucket does, and what is done about it:

- A finding's comment is an inline comment (`POST pullrequests/{id}/comments` with
  `inline.path` and `inline.to`, a head line), one request per comment: Bitbucket has no
  review that holds several. Whether Bitbucket shows a comment on a line outside the pull
  request's diff is not described, so every draft is checked against the diff as Bitbucket
  reports it (`GET pullrequests/{id}/diff`, a redirect to the repository's `diff/{spec}`) and
  refused here, never sent; so is a draft without a line (an inline comment needs one). The
  publish flow moves what is refused to the summary.
- Our comments are found by their hidden markers in `content.raw` (the text as written), by
  the token's own account (`GET /user`). A reply is a comment whose `parent` is ours. Deleted
  comments stay in the list with `deleted: true` and are skipped.
- Only the author edits a comment (`PUT …/comments/{id}`). A fixed finding's comment gets a
  "**Fixed** in `SHA`" line and is resolved (`POST …/comments/{id}/resolve`; 409 when it is
  already resolved); a finding that returns has the line taken out and the comment reopened
  (`DELETE …/resolve`). Only top-level comments resolve, and ours are all top-level.
- The summary is a top-level comment by the bot's account, edited in place.
- The gate is a Code Insights report on the head commit (`PUT commit/{sha}/reports/reviewbot`,
  result PASSED or FAILED) with the findings as its annotations (100 per request, 1000 per
  report; replacing the report drops them, so they are sent after it), and a build status
  (`POST commit/{sha}/statuses/build`, key `reviewbot`) that merge checks can require. Neither
  is sent again when Bitbucket already holds the same.
- A pull request's `source.commit.hash` may be abbreviated: the full sha is read from the
  pull request's commits.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import httpx

from bot.errors import BotError, Exit, NotFound, ReadOnly, Refused
from bot.forges import meanwhile, sticky
from bot.forges.base import (
    Actor,
    Annotation,
    Change,
    Draft,
    Posted,
    PullRequest,
    Range,
    Rejected,
    State,
    StatusReport,
)
from bot.forges.bitbucket import host
from bot.forges.bitbucket.api import Api, Settings, account
from bot.forges.bitbucket.limits import (
    ANNOTATIONS_PER_REPORT,
    ANNOTATIONS_PER_REQUEST,
    DETAILS_LIMIT,
    DIALECT,
    REPORT_ID,
    SUMMARY_LIMIT,
    TITLE_LIMIT,
)
from bot.forges.bitbucket.markers import from_wire, to_wire
from bot.forges.change import event_range, marked_fixed, pull_number
from bot.forges.limits import server_wait
from bot.forges.repository import Permission
from bot.forges.transport import Request
from bot.model import Severity, Trigger
from bot.render.dialect import Dialect
from bot.render.markdown import SUMMARY_MARKER, clip, parse_marker
from bot.revisions.diff import parse_patch

RETRIES = 3
STATES = {"success": "SUCCESSFUL", "failure": "FAILED", "neutral": "SUCCESSFUL"}
RESULTS = {"success": "PASSED", "failure": "FAILED", "neutral": "PASSED"}
SEVERITIES = {Severity.ERROR: "HIGH", Severity.WARNING: "MEDIUM", Severity.INFO: "LOW"}
DUPLICATE = ("<sub>A duplicate of an earlier reviewbot comment on this line (a write Bitbucket "
             "carried out twice); nothing to do here.</sub>")


class BitbucketChange:
    """One pull request (`bot.forges.base.Change`): `Settings.number`, or `number` when
    given."""

    name: Literal["bitbucket"] = "bitbucket"
    dialect: Dialect = DIALECT
    after_push = host.AFTER_PUSH
    author = host.AUTHOR

    def __init__(self, settings: Settings, *, number: int | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time,
                 http: httpx.BaseTransport | None = None, api: Api | None = None) -> None:
        self._number = pull_number(number, settings.number, "BitbucketChange")
        self._api = api or Api(settings, sleep=sleep, clock=clock, http=http)
        self._pull = f"{self._api.repo}/pullrequests/{self._number}"
        self._head: str | None = None
        self._ours: dict[str, str] = {}  # our finding comments' bodies, by id
        self._summary: tuple[int, str] | None = None  # comment id, body
        # The comments summary_body(keep=True) read, and the API's writes then: the next
        # load() takes them instead of listing them again, unless a write came between.
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

    def moved_since(self, pr: PullRequest, trigger: Trigger) -> str | None:
        return host.moved_since(pr, trigger)

    def head_ref(self, number: int) -> str:
        """Bitbucket mirrors no pull request ref: the head is fetched from its branch."""
        return f"refs/heads/{self.pull_request().head_ref}"

    def role(self, permission: Permission) -> str:
        return host.role(permission)

    def labeled_by(self, label: str) -> Actor | None:
        """Bitbucket pull requests carry no labels: the apply trigger is `/apply PLAN`."""
        return None

    # -- reads -------------------------------------------------------------------------

    def _get_pull(self) -> dict[str, Any]:
        data = self._api.get(self._pull)
        if not isinstance(data, dict) or not isinstance(data.get("source"), dict):
            raise BotError(f"Bitbucket answered GET pull request #{self._number} without one",
                           Exit.FORGE)
        return data

    def _full(self, sha: str) -> str:
        """The full sha of the pull request's commit `sha` names (Bitbucket may abbreviate)."""
        if len(sha) == 40 or not sha:
            return sha
        for commit in self._api.list(f"{self._pull}/commits", paged=False):
            found = str(commit.get("hash") or "")
            if found.startswith(sha):
                return found
        raise BotError(f"Bitbucket names the pull request's head {sha}, which is none of its "
                       "commits", Exit.FORGE)

    def pull_request(self) -> PullRequest:
        """The pull request as Bitbucket says now: head, base, branch, fork."""
        data = self._get_pull()
        source, destination = data["source"], data.get("destination") or {}
        head = self._full(_hash(source))
        self._head = head
        repo = source.get("repository") if isinstance(source.get("repository"), dict) else None
        name = str(repo["full_name"]) if repo and repo.get("full_name") else None
        clone = None if name is None else f"https://bitbucket.org/{name}.git"
        return PullRequest(self._number, head, _hash(destination),
                           str((source.get("branch") or {}).get("name") or ""), name, clone,
                           False, data.get("state") == "OPEN", self._api.settings.repository)

    def load(self) -> State:
        data = self._get_pull()
        head = self._full(_hash(data["source"]))
        self._head = head
        mine = account(self._api.me())
        kept, self._kept = self._kept, None
        listed = kept[1] if kept is not None and kept[0] == self._api.writes \
            else self._comments()
        comments = [c for c in listed if not c.get("deleted")]
        comments.sort(key=lambda c: int(c.get("id") or 0))
        parents = {int(c["id"]): _parent(c) for c in comments if isinstance(c.get("id"), int)}
        answered = {_root(parents, int(c["id"])) for c in comments
                    if isinstance(c.get("id"), int) and _parent(c) is not None
                    and account(c.get("user")) != mine}
        posted, self._ours = [], {}
        for comment in comments:
            body = _raw(comment)
            marker = parse_marker(body)
            if marker is None or account(comment.get("user")) != mine or _parent(comment) \
                    or not isinstance(comment.get("inline"), dict):
                continue
            cid = int(comment["id"])
            self._ours[str(cid)] = body
            resolution = comment.get("resolution")
            resolved = isinstance(resolution, dict)
            by_us = isinstance(resolution, dict) and account(resolution.get("user")) == mine
            posted.append(Posted(str(cid), marker.fingerprint, marker.digest,
                                 str(comment["inline"].get("path") or ""), str(cid), resolved,
                                 by_us, cid in answered))
        self._summary = _summary_of(comments, mine)
        return State(head, data.get("state") == "OPEN", tuple(posted),
                     str(self._summary[0]) if self._summary else None)

    def summary_body(self, *, keep: bool = False) -> str | None:
        """The body of the summary comment the bot's own account wrote, else None."""
        listed = self._comments()
        self._kept = (self._api.writes, listed) if keep else None
        self._summary = self._find_summary(listed)
        return self._summary[1] if self._summary else None

    def _comments(self) -> list[dict[str, Any]]:
        """Every comment of the pull request, deleted ones too (Bitbucket keeps them listed)."""
        return self._api.list(f"{self._pull}/comments")

    def _find_summary(self, listed: Sequence[Mapping[str, Any]] | None = None
                      ) -> tuple[int, str] | None:
        """Of the comments `listed` (default: listed now), the bot's own summary."""
        listed = self._comments() if listed is None else listed
        return _summary_of([c for c in listed if not c.get("deleted")],
                           account(self._api.me()))

    def diff_lines(self) -> Mapping[str, frozenset[int]]:
        head = self._head or self._full(_hash(self._get_pull()["source"]))
        if self._lines is None or self._lines[0] != head:
            response = self._api.follow(f"{self._pull}/diff")
            lines = {}
            for patch in parse_patch(response.content):
                if patch.new_path is None:
                    continue  # deleted: no head lines
                lines[patch.new_path] = frozenset(
                    n for hunk in patch.hunks
                    for n in range(hunk.new_start, hunk.new_start + hunk.new_count))
            self._lines = (head, lines)
        return self._lines[1]

    # -- writes ------------------------------------------------------------------------

    def post(self, commit: str, body: str, drafts: Sequence[Draft]) -> list[Rejected]:
        """Each draft as its own inline comment (Bitbucket has no review to hold several);
        `body` has no place: the summary says what the review says."""
        lines = self.diff_lines()
        rejected: list[Rejected] = []
        for draft in drafts:
            if draft.line is None:
                rejected.append(Rejected(draft, "a Bitbucket inline comment needs a line"))
            elif draft.line not in lines.get(draft.path, frozenset()):
                rejected.append(Rejected(draft, f"line {draft.line} of {draft.path} is outside "
                                                "Bitbucket's diff of the pull request"))
            else:
                try:
                    made = self._api.write("POST", f"{self._pull}/comments", {
                        "type": "pullrequest_comment", "content": {"raw": to_wire(draft.body)},
                        "inline": {"path": draft.path, "to": draft.line}})
                except Refused as exc:
                    rejected.append(Rejected(draft, exc.message))
                    continue
                if isinstance(made, dict) and isinstance(made.get("id"), int):
                    self._ours[str(made["id"])] = draft.body
        return rejected

    def edit(self, comment: Posted, body: str) -> None:
        if comment.id in self._ours:
            self._set_body(comment.id, body)

    def _set_body(self, cid: str, body: str) -> None:
        def send() -> None:
            self._api.write("PUT", f"{self._pull}/comments/{cid}",
                            {"type": "pullrequest_comment", "content": {"raw": to_wire(body)}},
                            idempotent=True)
            self._ours[cid] = body
        meanwhile.edit("comment", cid, send)

    def delete(self, comment: Posted) -> None:
        if comment.id not in self._ours:
            return
        try:
            meanwhile.delete(lambda: self._api.write(
                "DELETE", f"{self._pull}/comments/{comment.id}", idempotent=True))
        except Refused:  # Bitbucket keeps a comment that has replies: it stops being ours
            self._set_body(comment.id, DUPLICATE)
            return
        self._ours.pop(comment.id, None)

    def resolve(self, comment: Posted, resolved: bool) -> None:
        body = self._ours.get(comment.id)
        if body is None:
            return
        text = marked_fixed(body, (self._head or "") if resolved else None)
        if text != body:
            self._set_body(comment.id, text)
        path = f"{self._pull}/comments/{comment.id}/resolve"
        try:
            if resolved:
                self._api.write("POST", path, idempotent=True)
            else:
                self._api.write("DELETE", path, idempotent=True)
        except Refused as exc:
            if exc.status != 409:  # 409: resolved already, which is what was wanted
                print(f"reviewbot: could not {'resolve' if resolved else 'reopen'} comment "
                      f"{comment.id}: {exc.message}")
        except NotFound:  # deleted meanwhile, or (reopening) not resolved any more
            pass

    def summary(self, state: State, body: str) -> None:
        current = None if self._summary is None else sticky.Sticky(*self._summary, None)
        made = sticky.keep(body, current, self._summary_writes())
        self._summary = None if made is None else (made.id, made.body)

    def _summary_writes(self) -> sticky.Writes[None]:
        def edit(current: sticky.Sticky[None], body: str) -> sticky.Sticky[None]:
            self._api.write("PUT", f"{self._pull}/comments/{current.id}",
                            {"type": "pullrequest_comment", "content": {"raw": to_wire(body)}},
                            idempotent=True)
            return sticky.Sticky(current.id, body, None)

        def post(body: str) -> sticky.Sticky[None] | None:
            made = self._api.write("POST", f"{self._pull}/comments",
                                   {"type": "pullrequest_comment", "content": {"raw": to_wire(body)}})
            return sticky.Sticky(int(made["id"]), body, None) if isinstance(made, dict) \
                and isinstance(made.get("id"), int) else None

        def find() -> sticky.Sticky[None] | None:
            found = self._find_summary()
            return None if found is None else sticky.Sticky(*found, None)

        return sticky.Writes(edit, post, find, self._api.sleep, server_wait, RETRIES)

    def check(self, report: StatusReport) -> bool:
        """The report as a Code Insights report with its annotations, and a build status.
        False when the token may not write them."""
        try:
            self._insights(report)
            self._status(report)
        except ReadOnly as exc:
            print(f"reviewbot: cannot publish the Code Insights report or the build status "
                  f"({exc.message})")
            return False
        return True

    def _insights(self, report: StatusReport) -> None:
        path = f"{self._api.repo}/commit/{report.head}/reports/{REPORT_ID}"
        notes = insight_annotations(report.annotations)
        kept = notes[:ANNOTATIONS_PER_REPORT]
        details = report.summary if len(notes) == len(kept) else (
            f"{len(notes) - len(kept)} more findings than a report holds are in the pull "
            f"request's summary comment. {report.summary}")
        body: dict[str, Any] = {
            "type": "report", "title": clip(report.name, TITLE_LIMIT),
            "details": clip(f"{report.title}. {details}".strip(), DETAILS_LIMIT),
            "report_type": "BUG", "reporter": "reviewbot", "result": RESULTS[report.conclusion],
            "data": [{"type": "NUMBER", "title": "Findings", "value": len(notes)}]}
        if self._api.settings.target_url:
            body["link"] = self._api.settings.target_url
        if self._holds(path, body, kept):  # a re-run with the same verdict
            return
        # Replacing the report drops its annotations: they follow it.
        self._api.write("PUT", path, body, idempotent=True)
        for start in range(0, len(kept), ANNOTATIONS_PER_REQUEST):
            self._api.write("POST", f"{path}/annotations",
                            kept[start:start + ANNOTATIONS_PER_REQUEST], idempotent=True)

    def _holds(self, path: str, body: Mapping[str, Any], notes: Sequence[Mapping[str, Any]]
               ) -> bool:
        try:
            current = self._api.get(path)
        except NotFound:
            return False
        if not isinstance(current, dict) or any(current.get(k) != v for k, v in body.items()):
            return False
        have = self._api.list(f"{path}/annotations")
        fields = ("external_id", "summary", "details", "path", "line", "severity")
        return sorted(tuple(str(a.get(k)) for k in fields) for a in have) == sorted(
            tuple(str(a.get(k)) for k in fields) for a in notes)

    def _status(self, report: StatusReport) -> None:
        data: dict[str, Any] = {"type": "commitstatus", "key": REPORT_ID,
                                "state": STATES[report.conclusion], "name": report.name,
                                "description": clip(report.title, TITLE_LIMIT)}
        if self._api.settings.target_url:
            data["url"] = self._api.settings.target_url
        statuses = f"{self._api.repo}/commit/{report.head}/statuses/build"
        try:
            current = self._api.get(f"{statuses}/{REPORT_ID}")
        except NotFound:
            current = None
        if isinstance(current, dict) and all(current.get(k) == v for k, v in data.items()
                                             if k != "type"):
            return
        # A status is keyed: sending it twice leaves the one status.
        self._api.send(Request("POST", statuses, body=data, idempotent=True))


def insight_annotations(found: Sequence[Annotation]) -> list[dict[str, Any]]:
    """The findings as Code Insights annotations, each with an id of its own content (the
    same finding gets the same id in every run); one per id."""
    out: dict[str, dict[str, Any]] = {}
    for a in found:
        key = hashlib.sha256("\0".join((a.path, str(a.start_line), a.title, a.message))
                             .encode()).hexdigest()[:32]
        out.setdefault(key, {
            "type": "report_annotation", "external_id": f"reviewbot-{key}",
            "annotation_type": "BUG" if a.severity is Severity.ERROR else "CODE_SMELL",
            "summary": clip(f"{a.title}: {a.message}", SUMMARY_LIMIT),
            "details": clip(a.message, DETAILS_LIMIT), "path": a.path,
            "line": max(1, a.start_line), "severity": SEVERITIES[a.severity],
            "result": "FAILED"})
    return list(out.values())


def _hash(side: Any) -> str:
    commit = side.get("commit") if isinstance(side, dict) else None
    value = commit.get("hash") if isinstance(commit, dict) else None
    return value if isinstance(value, str) else ""


def _raw(comment: Mapping[str, Any]) -> str:
    content = comment.get("content")
    return from_wire(str(content.get("raw") or "")) if isinstance(content, dict) else ""


def _parent(comment: Mapping[str, Any]) -> int | None:
    parent = comment.get("parent")
    value = parent.get("id") if isinstance(parent, dict) else None
    return value if isinstance(value, int) else None


def _root(parents: Mapping[int, int | None], cid: int) -> int:
    """The top-level comment a reply's thread starts at."""
    seen = set()
    parent = parents.get(cid)
    while parent is not None and cid not in seen:
        seen.add(cid)
        cid, parent = parent, parents.get(parent)
    return cid


def _summary_of(comments: Sequence[Mapping[str, Any]], mine: str | None
                ) -> tuple[int, str] | None:
    # Anybody can write the marker: only the bot's own top-level comment is ours to edit.
    for comment in comments:
        body = _raw(comment)
        if SUMMARY_MARKER in body and account(comment.get("user")) == mine \
                and "inline" not in comment and _parent(comment) is None \
                and isinstance(comment.get("id"), int):
            return int(comment["id"]), body
    return None


def _is_change(change: BitbucketChange) -> Change:
    """mypy checks here that `BitbucketChange` is a `Change`: every member, every signature."""
    return change
