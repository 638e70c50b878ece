"""GitLab's merge request side through python-gitlab (the only module that imports it), and
its markdown dialect.

A GitLab diff note sits on one line; its suggestion block says how many lines above and
below that line it replaces (```suggestion:-A+B, at most 100 each way).

Retries are ours: python-gitlab's own would send a POST again after a 5xx (a duplicated
note), so each request is sent with them off and goes through `backoff.retry`. A write that
may have taken effect raises `Uncertain`, and the publish flow re-reads before writing again.

A dry run (`record_writes()`) reads as usual and records each write (`transport.Recording`,
the one recording layer of every forge) instead of sending it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar
from urllib.parse import quote

import gitlab
import requests

from bot.errors import BotError, Exit, NotFound, ReadOnly, Refused, Uncertain
from bot.forges import meanwhile, replies, sticky
from bot.forges.backoff import Failed, Sent, Wait, retry
from bot.forges.base import Draft, Posted, Rejected, State, StatusReport
from bot.forges.gitlab.notes import Version, defuse, position
from bot.forges.hunks import head_lines
from bot.forges.limits import LONGEST, rate_wait, server_wait
from bot.forges.repository import Access, Issue, Permission, Reaction
from bot.forges.transport import Recording, Request
from bot.publishing.placement import Dialect
from bot.render.markdown import SUMMARY_MARKER, clip, parse_marker

SUGGESTION_REACH = 100  # lines above and below the commented line a suggestion may replace
RETRIES = 4
PER_PAGE = 100
DESCRIPTION_LIMIT = 255  # a commit status's description
STATES = {"success": "success", "failure": "failed", "neutral": "success"}
T = TypeVar("T")


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


@dataclass
class _Thread:
    discussion: str
    note: int


class _Client:
    """The REST plumbing both sides share: python-gitlab with its retries off, ours in `_call`."""

    def __init__(self, api_url: str, token: str, project: str, timeout: float,
                 sleep: Callable[[float], None], clock: Callable[[], float]) -> None:
        self._sleep, self._clock = sleep, clock
        self._recording: Recording | None = None  # a dry run's writes, in order
        server = api_url.rstrip("/").removesuffix("/api/v4")
        self._gl = gitlab.Gitlab(server, private_token=token, timeout=timeout,
                                 retry_transient_errors=False, keep_base_url=True)
        self._headers: dict[str, str] = {}  # of the last answer: a 429's Retry-After
        self._gl.session.hooks["response"].append(self._keep_headers)
        self._project = f"/projects/{quote(project, safe='')}"
        self._me: int | None = None

    def record_writes(self) -> Recording:
        """A dry run: from now on each write is recorded in the returned `Recording.requests`,
        not sent (and answered with nothing: GitLab's answer is not known)."""
        self._recording = Recording(lambda request: None)
        return self._recording

    def me(self) -> int:
        """The token's user: the bot's own account."""
        if self._me is None:
            self._me = int(self._get("/user")["id"])
        return self._me

    # -- plumbing ----------------------------------------------------------------------

    def _keep_headers(self, response: requests.Response, *args: Any, **kwargs: Any) -> None:
        self._headers = dict(response.headers)

    def _get(self, path: str) -> dict[str, Any]:
        data = self._call(lambda: self._gl.http_get(path, **_OFF), write=False)
        if not isinstance(data, dict):
            raise BotError(f"GitLab answered GET {path} with something else than an object",
                           Exit.FORGE)
        return data

    def _list(self, path: str, query: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
        data = self._call(lambda: list(self._gl.http_list(path, query_data=dict(query or {}),
                                                          get_all=True, per_page=PER_PAGE,
                                                          **_OFF)), write=False)
        return [d for d in data if isinstance(d, dict)]

    def _write(self, method: Literal["POST", "PUT", "DELETE"], path: str, *,
               data: Mapping[str, Any] | None = None, query: Mapping[str, str] | None = None,
               idempotent: bool = False) -> Any:
        """Send one write (a dry run records it instead and answers None)."""
        if self._recording is not None:
            return self._recording.send(Request(method, path, dict(query or {}),
                                                dict(data) if data is not None else None)).json()
        post, params = dict(data) if data is not None else None, dict(query or {})
        if method == "DELETE":
            return self._call(lambda: self._gl.http_delete(path, **_OFF), write=True,
                              idempotent=idempotent)
        send = self._gl.http_post if method == "POST" else self._gl.http_put
        return self._call(lambda: send(path, query_data=params, post_data=post, **_OFF),
                          write=True, idempotent=idempotent)

    def _call(self, send: Callable[[], T], *, write: bool, idempotent: bool = False) -> T:
        """Send with our retries: a 429 waits as GitLab says; a 5xx or a timeout is sent again
        only when repeating it cannot duplicate anything, else it is `Uncertain`."""
        repeatable = not write or idempotent

        def judge(outcome: Sent[T] | Failed) -> Wait | None:
            if isinstance(outcome, Sent):
                return None
            error, attempt = outcome.error, outcome.attempt
            if isinstance(error, requests.exceptions.RequestException):
                if not repeatable:
                    raise Uncertain(f"GitLab did not answer a write in time ({error})")
                return Wait(server_wait(attempt), f"no answer ({type(error).__name__})")
            if not isinstance(error, gitlab.exceptions.GitlabError):
                return None
            code = error.response_code or 0
            message = f"{code}: {error.error_message}"
            if code == 429:
                return Wait(min(LONGEST, rate_wait(self._headers, attempt, self._clock())),
                            message)
            if code >= 500:
                if not repeatable:
                    raise Uncertain(f"GitLab answered a write with {message}")
                return Wait(server_wait(attempt), message)
            if code in (401, 403):
                if write:
                    raise ReadOnly(f"the token may not write to this merge request ({message})")
                raise BotError(f"GitLab refused the token ({message}): it needs the `api` scope "
                               "and the Developer role or higher", Exit.FORGE)
            if code == 404:
                raise NotFound(f"not found ({message})")
            if code in (400, 409, 422):
                raise Refused(message)
            return None

        return retry(send, judge, retries=RETRIES, sleep=self._sleep,
                     exhausted=lambda why: BotError(f"the GitLab API kept failing: {why}",
                                                    Exit.FORGE))


class GitLabForge(_Client):
    """One merge request."""

    dialect = DIALECT

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

    def _write(self, method: Literal["POST", "PUT", "DELETE"], path: str, *,
               data: Mapping[str, Any] | None = None, query: Mapping[str, str] | None = None,
               idempotent: bool = False) -> Any:
        self._kept = None  # after a write, a load reads again
        return super()._write(method, path, data=data, query=query, idempotent=idempotent)

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
            if not notes or _author(notes[0]) != me:
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
                resolved, resolved and _author(first.get("resolved_by")) == me,
                any(_author(n) != me and not n.get("system") for n in notes[1:])))
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

class GitLabRepository(_Client):
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
            made = self._call(lambda: self._gl.http_post(notes, post_data={"body": text},
                                                         **_OFF), write=True)
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
                         if marker in str(n.get("body") or "") and _author(n) == mine), None)

        def change(current: sticky.Sticky[None], text: str) -> sticky.Sticky[None]:
            self._write("PUT", f"{notes}/{current.id}", data={"body": text}, idempotent=True)
            return sticky.Sticky(current.id, text, None)

        def post(text: str) -> sticky.Sticky[None] | None:
            made = self._write("POST", notes, data={"body": text})
            return sticky.Sticky(int(made["id"]), text, None) if isinstance(made, dict) else None

        current = find()
        if current is None and not create:
            return
        sticky.keep(defuse(body), current, sticky.Writes(change, post, find, self._sleep,
                                                        server_wait, RETRIES, noun="note"))

    def react(self, number: int, comment_id: int, reaction: Reaction) -> None:
        try:
            # Awarding twice is refused ("has already been taken"): sending it again is harmless.
            self._call(lambda: self._gl.http_post(
                f"{self._project}/merge_requests/{number}/notes/{comment_id}/award_emoji",
                post_data={"name": EMOJI[reaction]}, **_OFF), write=True, idempotent=True)
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
        self._call(lambda: self._gl.http_put(f"{self._project}/merge_requests/{number}",
                                             post_data={"add_labels": label}, **_OFF),
                   write=True, idempotent=True)

    def remove_label(self, number: int, label: str) -> None:
        # remove_labels takes only the names given: the merge request's other labels stay.
        self._call(lambda: self._gl.http_put(f"{self._project}/merge_requests/{number}",
                                             post_data={"remove_labels": label}, **_OFF),
                   write=True, idempotent=True)

    def read_file(self, path: str, ref: str | None = None) -> bytes | None:
        query = {"ref": ref} if ref else {}
        if not ref:
            query["ref"] = str(self._get(self._project).get("default_branch") or "HEAD")
        try:
            data = self._call(lambda: self._gl.http_get(
                f"{self._project}/repository/files/{quote(path, safe='')}/raw",
                query_data=query, raw=True, **_OFF), write=False)
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
        made = self._call(lambda: self._gl.http_post(f"{self._project}/issues", post_data=data,
                                                     **_OFF), write=True)
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
        made = self._call(lambda: self._gl.http_put(f"{self._project}/issues/{number}",
                                                    post_data=change, **_OFF),
                          write=True, idempotent=True)
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
_OFF: dict[str, Any] = {"obey_rate_limit": False, "retry_transient_errors": False, "max_retries": 0}


def _author(note: Any) -> int | None:
    if not isinstance(note, dict):
        return None
    user = note.get("author", note)
    value = user.get("id") if isinstance(user, dict) else None
    return value if isinstance(value, int) else None
