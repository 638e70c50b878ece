"""GitLab's merge request (`bot.forges.base.Change`) over the shared client (`client.py`:
python-gitlab, our retries, a dry run's recording), and its markdown dialect.

A webhook's pipeline runs on the default branch: its checkout is never the merge request, so
the head is fetched (GitLab mirrors it at `refs/merge-requests/IID/head`, a fork's too) and
every file is read from git at that commit. The head a command was written against is the
payload's `last_commit.id`; the merge request's latest diff version is what GitLab says the
head is now.

A GitLab diff note sits on one line; its suggestion block says how many lines above and
below that line it replaces (```suggestion:-A+B, at most 100 each way).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from bot.errors import BotError, Exit, NotFound, ReadOnly, Refused
from bot.forges import meanwhile, sticky
from bot.forges.base import (
    Actor,
    Draft,
    Posted,
    PullRequest,
    Range,
    Rejected,
    State,
    StatusReport,
)
from bot.forges.gitlab.client import RETRIES, Client, author
from bot.forges.gitlab.notes import Version, defuse, position
from bot.forges.gitlab.repository import role
from bot.forges.hunks import head_lines
from bot.forges.limits import server_wait
from bot.forges.repository import Permission
from bot.model import Trigger
from bot.render.dialect import Dialect
from bot.render.markdown import SUMMARY_MARKER, clip, parse_marker

SUGGESTION_REACH = 100  # lines above and below the commented line a suggestion may replace
DESCRIPTION_LIMIT = 255  # a commit status's description
STATES = {"success": "success", "failure": "failed", "neutral": "success"}


def fence(start: int, end: int, anchor: int) -> str:
    """`suggestion:-A+B` for replacing lines start..end from a note on line `anchor`."""
    above, below = anchor - start, end - anchor
    if not 0 <= above <= SUGGESTION_REACH or not 0 <= below <= SUGGESTION_REACH:
        raise ValueError(f"lines {start}..{end} cannot be suggested from line {anchor}")
    return f"suggestion:-{above}+{below}"


# Notes are "Limited to 1,000,000 characters" (GitLab's notes API).
DIALECT = Dialect("gitlab", body_limit=1_000_000, ranges=False, fence=fence,
                  elsewhere="the Code Quality report or the SARIF file")


@dataclass(frozen=True)
class Settings:
    api_url: str  # CI_API_V4_URL: https://HOST/api/v4
    token: str
    project: str  # CI_PROJECT_ID (or the URL-encoded full path)
    iid: int
    timeout: float = 30.0
    target_url: str | None = None  # CI_JOB_URL, where the commit status links to
    repository: str = ""  # the project's full path (CI_PROJECT_PATH)
    server: str = ""  # CI_SERVER_URL: the apply commit's default author is named after it


@dataclass(frozen=True)
class MergeRequest:
    iid: int
    version: Version  # the latest diff version: base and head
    source_branch: str
    fork: bool  # the source project is not the target project
    source_project: str | None  # a fork's full path (None: the same project, or unknown)
    source_url: str | None  # a fork's clone URL
    allow_collaboration: bool  # the fork lets members of the target push to its branch
    open: bool


@dataclass
class _Thread:
    discussion: str
    note: int


class GitLabChange(Client):
    """One merge request (`bot.forges.base.Change`)."""

    name: Literal["gitlab"] = "gitlab"
    dialect = DIALECT
    after_push = ("the push also starts a merge request pipeline of its own, which finds this "
                  "review in place.")

    def __init__(self, settings: Settings, *, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time) -> None:
        super().__init__(settings.api_url, settings.token, settings.project, settings.timeout,
                         sleep, clock)
        self._s = settings
        self._mr = f"{self._project}/merge_requests/{settings.iid}"
        self._version: Version | None = None
        self._threads: dict[str, _Thread] = {}  # our notes by id
        self._summary: tuple[int, str] | None = None  # note id, body
        self._kept: State | None = None  # what the next load() returns (summary_body(keep=))
        host = urlsplit(settings.server).hostname or "gitlab.invalid"
        self.author = f"reviewbot <reviewbot@noreply.{host}>"

    def _write(self, method: Literal["POST", "PUT", "DELETE"], path: str, *,
               data: Mapping[str, Any] | None = None, query: Mapping[str, str] | None = None,
               idempotent: bool = False) -> Any:
        self._kept = None  # after a write, a load reads again
        return super()._write(method, path, data=data, query=query, idempotent=idempotent)

    # -- the conversation ----------------------------------------------------------------

    def review_range(self, trigger: Trigger) -> Range:
        """Never CI_COMMIT_SHA (a merge commit in merged-result pipelines): the latest diff
        version's base and head."""
        version, is_open = self.version()
        return Range(version.base, version.head, is_open)

    def pull_request(self) -> PullRequest:
        mr = self.merge_request()
        repository = self._s.repository
        return PullRequest(mr.iid, mr.version.head, mr.version.base, mr.source_branch,
                           mr.source_project if mr.fork else repository, mr.source_url,
                           mr.allow_collaboration, mr.open, repository)

    def moved_since(self, pr: PullRequest, trigger: Trigger) -> str | None:
        seen = trigger.head_sha
        if seen is None:
            return ("The webhook does not say which head the comment was written against. "
                    "Nothing was done.")
        if pr.head != seen:
            return (f"The merge request's head moved to {pr.head[:12]} after the comment was "
                    f"written at {seen[:12]}. Nothing was done: check the new head and comment "
                    "again.")
        return None

    def head_ref(self, number: int) -> str:
        return f"refs/merge-requests/{number}/head"  # a fork's head is mirrored there too

    def role(self, permission: Permission) -> str:
        return role(permission)

    def labeled_by(self, label: str) -> Actor | None:
        return None  # a label's pipeline here is the trusted job: its event names who acted

    # -- reads -------------------------------------------------------------------------

    def version(self) -> tuple[Version, bool]:
        """The latest diff version, and whether the merge request is open. Base, start and
        head come from here, never from CI_COMMIT_SHA (a merge commit in merged-result
        pipelines)."""
        mr = self._get(self._mr)
        versions = self._list(f"{self._mr}/versions")
        if not versions:
            raise BotError(f"merge request !{self._s.iid} has no diff version yet; run again "
                           "once GitLab has computed its diff", Exit.FORGE)
        latest = max(versions, key=lambda v: int(v["id"]))
        self._version = Version(int(latest["id"]), str(latest["base_commit_sha"]),
                                str(latest["start_commit_sha"]), str(latest["head_commit_sha"]))
        return self._version, mr.get("state") == "opened"

    def merge_request(self) -> MergeRequest:
        """The merge request as GitLab says now: its latest diff version, its branches, and
        whether the bot may push to a fork's source branch (`allow_collaboration`)."""
        version, is_open = self.version()
        mr = self._get(self._mr)
        source, target = mr.get("source_project_id"), mr.get("target_project_id")
        fork = source != target
        project = self._get(f"/projects/{source}") if fork and isinstance(source, int) else {}
        path = project.get("path_with_namespace") if fork else None
        url = project.get("http_url_to_repo") if fork else None
        return MergeRequest(self._s.iid, version, str(mr.get("source_branch") or ""),
                            fork, str(path) if path else None, str(url) if url else None,
                            bool(mr.get("allow_collaboration")), is_open)

    def summary_body(self, *, keep: bool = False) -> str | None:
        """The body of the bot's own summary note (what the conversation's state is read from:
        a note anyone else wrote does not count). keep: the state read here is what the next
        `load()` returns, unless a write comes first: a review that publishes right after
        reads the discussions once."""
        state = self.load()
        self._kept = state if keep else None
        return self._summary[1] if self._summary else None

    def load(self) -> State:
        if self._kept is not None:
            state, self._kept = self._kept, None
            return state
        version, is_open = self.version()
        me = self.me()
        posted: list[Posted] = []
        self._threads, self._summary = {}, None
        for discussion in self._list(f"{self._mr}/discussions"):
            notes = discussion.get("notes") or []
            if not notes or author(notes[0]) != me:
                continue
            first, body = notes[0], str(notes[0].get("body") or "")
            if SUMMARY_MARKER in body and self._summary is None:
                self._summary = (int(first["id"]), body)
                continue
            found = parse_marker(body)
            if found is None:
                continue
            self._threads[str(first["id"])] = _Thread(str(discussion["id"]), int(first["id"]))
            resolved = bool(first.get("resolved"))
            path = (first.get("position") or {}).get("new_path") or ""
            posted.append(Posted(
                str(first["id"]), found.fingerprint, found.digest, str(path), str(discussion["id"]),
                resolved, resolved and author(first.get("resolved_by")) == me,
                any(author(n) != me and not n.get("system") for n in notes[1:])))
        return State(version.head, is_open, tuple(posted),
                     str(self._summary[0]) if self._summary else None)

    def diff_lines(self) -> Mapping[str, frozenset[int]]:
        diffs = self._list(f"{self._mr}/diffs")
        # A file without `diff` (binary, or over the instance's limits) takes no line notes.
        return {str(d["new_path"]): head_lines(str(d.get("diff") or ""))
                for d in diffs if not d.get("deleted_file")}

    # -- writes ------------------------------------------------------------------------

    def post(self, commit: str, body: str, drafts: Sequence[Draft]) -> list[Rejected]:
        """One discussion per draft (GitLab has no review object holding several)."""
        version = self._version or self.version()[0]
        if version.head != commit:
            raise BotError(f"the merge request's diff version is at {version.head[:12]}, not "
                           f"{commit[:12]}", Exit.FORGE)
        rejected: list[Rejected] = []
        for draft in drafts:
            data = {"body": defuse(draft.body), "position": position(version, draft)}
            try:
                self._write("POST", f"{self._mr}/discussions", data=data)
            except Refused as exc:
                rejected.append(Rejected(draft, exc.message))
        return rejected

    def edit(self, comment: Posted, body: str) -> None:
        thread = self._threads.get(comment.id)
        if thread is None:
            return
        meanwhile.edit("note", comment.id, lambda: self._write(
            "PUT", f"{self._mr}/discussions/{thread.discussion}/notes/{thread.note}",
            data={"body": defuse(body)}, idempotent=True))

    def delete(self, comment: Posted) -> None:
        thread = self._threads.get(comment.id)
        if thread is None:
            return
        meanwhile.delete(lambda: self._write(
            "DELETE", f"{self._mr}/discussions/{thread.discussion}/notes/{thread.note}",
            idempotent=True))

    def resolve(self, comment: Posted, resolved: bool) -> None:
        if comment.thread is None:
            return
        try:
            self._write("PUT", f"{self._mr}/discussions/{comment.thread}",
                        query={"resolved": "true" if resolved else "false"}, idempotent=True)
        except (Refused, NotFound) as exc:  # the thread stays as it was; the next run tries again
            print(f"reviewbot: could not {'resolve' if resolved else 'reopen'} a thread: "
                  f"{exc.message}")

    def summary(self, state: State, body: str) -> None:
        current = None if self._summary is None else sticky.Sticky(*self._summary, None)
        made = sticky.keep(defuse(body), current, self._summary_writes())
        self._summary = None if made is None else (made.id, made.body)

    def _summary_writes(self) -> sticky.Writes[None]:
        def edit(current: sticky.Sticky[None], text: str) -> sticky.Sticky[None]:
            self._write("PUT", f"{self._mr}/notes/{current.id}", data={"body": text},
                        idempotent=True)
            return sticky.Sticky(current.id, text, None)

        def post(text: str) -> sticky.Sticky[None] | None:
            made = self._write("POST", f"{self._mr}/notes", data={"body": text})
            return sticky.Sticky(int(made["id"]), text, None) if isinstance(made, dict) else None

        def find() -> sticky.Sticky[None] | None:
            self.load()
            return None if self._summary is None else sticky.Sticky(*self._summary, None)

        return sticky.Writes(edit, post, find, self._sleep, server_wait, RETRIES,
                             noun="summary note")

    def check(self, report: StatusReport) -> bool:
        """The report as a commit status on the head: never left pending or running."""
        data = {"state": STATES[report.conclusion], "name": report.name,
                "description": clip(report.title, DESCRIPTION_LIMIT)}
        if self._s.target_url:
            data["target_url"] = self._s.target_url
        try:
            if self._status_says(report.head, data):  # a re-run with the same verdict
                return True
            # Setting a status is a state, not a new object: sending it again is harmless.
            self._write("POST", f"{self._project}/statuses/{report.head}", data=data,
                        idempotent=True)
        except ReadOnly as exc:
            print(f"reviewbot: cannot set a commit status ({exc.message})")
            return False
        except Refused as exc:
            # "Cannot transition status via :x from :x": the status already says so.
            if "transition" not in exc.message:
                raise
        return True

    def _status_says(self, sha: str, data: Mapping[str, str]) -> bool:
        """Whether the newest status of that name on `sha` already says what `data` does."""
        statuses = self._list(f"{self._project}/repository/commits/{sha}/statuses",
                              {"name": data["name"], "all": "true"})
        latest = max(statuses, key=lambda s: int(s.get("id") or 0), default=None)
        return latest is not None and all(
            latest.get(k) == data[v] for k, v in (("status", "state"), ("description", "description")))
