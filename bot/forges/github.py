"""GitHub through PyGithub (REST) and `graphql.py` (threads): the only PyGithub importer.

Retries are ours, not the library's: PyGithub's default retry re-sends a POST after a 502 that
already took effect. Here a rate-limited request (403/429 with retry-after, reset or a
secondary-limit message) is waited out and sent again, because GitHub did not process it; a
5xx or a timeout on a read is retried with backoff; on a write that is not idempotent it
raises `Uncertain`, and the publish flow reads the state again before writing.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import requests
from github import Auth, Github, GithubException
from github.CheckRun import CheckRun
from github.Commit import Commit
from github.IssueComment import IssueComment
from github.PullRequest import PullRequest
from github.PullRequestComment import PullRequestComment

from bot.errors import BotError, Exit
from bot.forges.backoff import rate_limit_wait, server_wait
from bot.forges.base import CheckReport, Draft, Posted, ReadOnly, Rejected, State, Uncertain
from bot.forges.graphql import GraphQL, GraphQLError
from bot.render.markdown import SUMMARY_MARKER, clip, parse_marker
from bot.review import Annotation

T = TypeVar("T")
API_VERSION = "2022-11-28"
RETRIES = 3
ANNOTATIONS_PER_REQUEST = 50  # Checks API maxItems
CHECK_TEXT_LIMIT = 65_535

THREADS = """
query($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id isResolved resolvedBy { login }
          comments(first: 1) { nodes { fullDatabaseId author { login } } }
        }
      }
    }
  }
}"""
RESOLVE = "mutation($id: ID!) { resolveReviewThread(input: {threadId: $id}) { thread { id isResolved } } }"
UNRESOLVE = ("mutation($id: ID!) { unresolveReviewThread(input: {threadId: $id}) "
             "{ thread { id isResolved } } }")


@dataclass(frozen=True)
class Settings:
    api_url: str
    graphql_url: str
    token: str
    repository: str  # owner/name
    number: int
    timeout: float = 15.0
    read_spacing: float = 0.0
    write_spacing: float = 1.0  # GitHub: "wait at least one second between mutative requests"
    max_wait: float = 300.0  # the longest rate-limit wait we accept before giving up


class Refused(Exception):
    """GitHub validated the request and refused it (422)."""


class NotFound(BotError):
    def __init__(self, message: str) -> None:
        super().__init__(message, Exit.FORGE)


class GitHubForge:
    def __init__(self, settings: Settings, *, sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time) -> None:
        self._s = settings
        self._sleep = sleep
        self._clock = clock
        self._gh = Github(auth=Auth.Token(settings.token), base_url=settings.api_url,
                          timeout=int(max(1, settings.timeout)), retry=None, per_page=100,
                          seconds_between_requests=settings.read_spacing or None,
                          seconds_between_writes=settings.write_spacing or None,
                          lazy=True, api_version=API_VERSION)
        self._repo = self._gh.get_repo(settings.repository)  # lazy: no request
        self._gql = GraphQL(settings.graphql_url, settings.token, timeout=settings.timeout,
                            write_spacing=settings.write_spacing, max_wait=settings.max_wait,
                            sleep=sleep, clock=clock)
        self._pr: PullRequest | None = None
        self._review_comments: dict[str, PullRequestComment] = {}
        self._summary: IssueComment | None = None
        self._max_batch = 1_000_000  # lowered when GitHub fails on a large review

    # -- reads -------------------------------------------------------------------------

    def pull(self) -> PullRequest:
        self._pr = self._call(lambda: self._repo.get_pull(self._s.number), write=False)
        return self._pr

    def load(self) -> State:
        pr = self.pull()
        head, is_open = self._call(lambda: (pr.head.sha, pr.state == "open"), write=False)
        raw = self._list(f"{pr.url}/comments")
        replies = {str(c["in_reply_to_id"]) for c in raw
                   if c.get("in_reply_to_id") and parse_marker(c.get("body") or "") is None}
        ours = [(c, m) for c in raw
                if (m := parse_marker(c.get("body") or "")) and not c.get("in_reply_to_id")]
        self._review_comments = {str(c["id"]): PullRequestComment(
            self._gh.requester, {}, c, completed=True) for c, _ in ours}
        threads, known = self._threads() if ours else ({}, True)
        posted = []
        for comment, found in ours:
            cid = str(comment["id"])
            thread = threads.get(cid)
            posted.append(Posted(cid, found.fingerprint, found.digest, str(comment.get("path")),
                                 thread[0] if thread else None, thread[1] if thread else False,
                                 thread[2] if thread else False, cid in replies))
        self._summary = self._find_summary(pr)
        return State(head, is_open, tuple(posted),
                     str(self._summary.id) if self._summary else None, known)

    def _threads(self) -> tuple[dict[str, tuple[str, bool, bool]], bool]:
        """Our comments' threads by REST comment id: (thread id, resolved, resolved by us)."""
        owner, name = self._s.repository.split("/", 1)
        out: dict[str, tuple[str, bool, bool]] = {}
        after: str | None = None
        try:
            while True:
                data = self._gql.run(THREADS, {"owner": owner, "name": name,
                                               "number": self._s.number, "after": after})
                page = data["repository"]["pullRequest"]["reviewThreads"]
                for node in page["nodes"]:
                    first = (node["comments"]["nodes"] or [None])[0]
                    if first and first.get("fullDatabaseId") is not None:
                        author = (first.get("author") or {}).get("login")
                        resolver = (node.get("resolvedBy") or {}).get("login")
                        out[str(first["fullDatabaseId"])] = (
                            node["id"], bool(node["isResolved"]),
                            bool(node["isResolved"]) and resolver is not None and resolver == author)
                if not page["pageInfo"]["hasNextPage"]:
                    return out, True
                after = page["pageInfo"]["endCursor"]
        except GraphQLError as exc:
            print(f"reviewbot: could not read review threads ({exc.message}); "
                  "fixed findings keep their threads open this run")
            return out, False

    def _find_summary(self, pr: PullRequest) -> IssueComment | None:
        found = next((c for c in self._list(f"{pr.issue_url}/comments")
                      if SUMMARY_MARKER in (c.get("body") or "")), None)
        return IssueComment(self._gh.requester, {}, found, completed=True) if found else None

    def _list(self, url: str) -> list[dict[str, Any]]:
        """Every page of a list endpoint, as JSON.

        PyGithub's list items are incomplete objects: reading a field GitHub omits (a root
        comment has no `in_reply_to_id`) would cost one GET per comment.
        """
        out: list[dict[str, Any]] = []
        page = 1
        while True:
            headers, data = self._call(lambda p=page: self._gh.requester.requestJsonAndCheck(  # type: ignore[misc]
                "GET", url, parameters={"per_page": 100, "page": p}), write=False)
            out += data if isinstance(data, list) else []
            if 'rel="next"' not in str(headers.get("link", "")):
                return out
            page += 1

    # -- writes ------------------------------------------------------------------------

    def post(self, commit: str, body: str, drafts: Sequence[Draft]) -> list[Rejected]:
        lines = [d for d in drafts if d.line is not None]
        rejected: list[Rejected] = []
        size = min(self._max_batch, max(1, len(lines)))
        for start in range(0, len(lines), size):
            rejected += self._review(commit, body, lines[start:start + size])
        for draft in (d for d in drafts if d.line is None):
            try:
                self._call(lambda d=draft: self._pr_now().create_review_comment(  # type: ignore[misc]
                    body=d.body, commit=commit, path=d.path, subject_type="file"), write=True)
            except Refused as exc:
                rejected.append(Rejected(draft, str(exc)))
        return rejected

    def _review(self, commit: str, body: str, drafts: Sequence[Draft]) -> list[Rejected]:
        """One review; a 422 is bisected to find the comments GitHub refuses."""
        if not drafts:
            return []
        comments = [_comment(d) for d in drafts]
        try:
            self._call(lambda: self._pr_now().create_review(
                commit=self._commit(commit), body=body, event="COMMENT",
                comments=comments), write=True)  # type: ignore[arg-type]
            return []
        except Refused as exc:
            if len(drafts) == 1:
                return [Rejected(drafts[0], str(exc))]
        except Uncertain:
            if len(drafts) > 1:  # next attempt sends smaller reviews
                self._max_batch = max(1, len(drafts) // 2)
            raise
        middle = len(drafts) // 2
        return self._review(commit, body, drafts[:middle]) + self._review(commit, body, drafts[middle:])

    def edit(self, comment: Posted, body: str) -> None:
        target = self._review_comments.get(comment.id)
        if target is None:
            return
        try:
            self._call(lambda: target.edit(body), write=True, idempotent=True)
        except NotFound:
            print(f"reviewbot: comment {comment.id} was deleted meanwhile; not edited")

    def delete(self, comment: Posted) -> None:
        target = self._review_comments.get(comment.id)
        if target is None:
            return
        with contextlib.suppress(NotFound):  # already gone: what was wanted
            self._call(target.delete, write=True, idempotent=True)

    def resolve(self, comment: Posted, resolved: bool) -> None:
        if comment.thread is None:
            return
        try:
            self._gql.run(RESOLVE if resolved else UNRESOLVE, {"id": comment.thread}, mutation=True)
        except GraphQLError as exc:  # the thread stays as it was; the next run tries again
            print(f"reviewbot: could not {'resolve' if resolved else 'reopen'} a thread: "
                  f"{exc.message}")

    def summary(self, state: State, body: str) -> None:
        current = self._summary
        if current is not None:
            if (current.body or "") != body:
                self._call(lambda: current.edit(body), write=True, idempotent=True)
            return
        for attempt in range(RETRIES + 1):
            try:
                self._summary = self._call(lambda: self._pr_now().create_issue_comment(body),
                                           write=True)
                return
            except Uncertain:
                if attempt == RETRIES:
                    raise
                self._sleep(server_wait(attempt))
                found = self._find_summary(self._pr_now())
                if found is not None:  # the failed POST did create it
                    self._summary = found
                    self.summary(state, body)
                    return

    def check(self, report: CheckReport) -> bool:
        batches = [report.annotations[i:i + ANNOTATIONS_PER_REQUEST]
                   for i in range(0, len(report.annotations), ANNOTATIONS_PER_REQUEST)] or [()]
        output = {"title": clip(report.title, 255), "summary": clip(report.summary, CHECK_TEXT_LIMIT)}
        first = {**output, "annotations": [_annotation(a) for a in batches[0]]}
        # Names this run's check run, so a creation whose answer was lost is found, not repeated.
        marker = uuid.uuid4().hex
        try:
            run = self._create_check(report, first, marker)
        except ReadOnly as exc:
            print(f"reviewbot: cannot create a check run ({exc.message})")
            return False
        for batch in batches[1:]:  # further annotations append (Checks API)
            self._call(lambda b=batch: run.edit(  # type: ignore[misc]
                output={**output, "annotations": [_annotation(a) for a in b]}),
                write=True, idempotent=False)
        return True

    def _create_check(self, report: CheckReport, output: dict[str, Any], marker: str) -> CheckRun:
        for attempt in range(RETRIES + 1):
            try:
                return self._call(lambda: self._repo.create_check_run(
                    name=report.name, head_sha=report.head, status="completed",
                    conclusion=report.conclusion, external_id=marker, output=output), write=True)
            except Uncertain:
                if attempt == RETRIES:
                    raise
                self._sleep(server_wait(attempt))
                found = self._find_check(report, marker)
                if found is not None:  # the failed POST did create it
                    return found
        raise AssertionError("unreachable")

    def _find_check(self, report: CheckReport, marker: str) -> CheckRun | None:
        _, data = self._call(lambda: self._gh.requester.requestJsonAndCheck(
            "GET", f"{self._repo.url}/commits/{report.head}/check-runs",
            parameters={"check_name": report.name, "filter": "all", "per_page": 100}), write=False)
        runs = data.get("check_runs", []) if isinstance(data, dict) else []
        found = next((r for r in runs if r.get("external_id") == marker), None)
        return CheckRun(self._gh.requester, {}, found, completed=True) if found else None

    # -- plumbing ----------------------------------------------------------------------

    def _pr_now(self) -> PullRequest:
        return self._pr if self._pr is not None else self.pull()

    def _commit(self, sha: str) -> Commit:
        # A complete Commit from what we know: PyGithub would GET it to read its sha.
        return Commit(self._gh.requester, {}, {"sha": sha, "url": f"{self._repo.url}/commits/{sha}"},
                      completed=True)

    def _call(self, fn: Callable[[], T], *, write: bool, idempotent: bool = False) -> T:
        last = ""
        for attempt in range(RETRIES + 1):
            try:
                return fn()
            except GithubException as exc:
                message = _message(exc)
                wait = rate_limit_wait(exc.status, exc.headers, message, attempt, self._clock())
                if wait is not None and wait <= self._s.max_wait:
                    self._sleep(wait)  # not processed: safe to send again, writes included
                    last = f"rate limited ({message})"
                    continue
                _raise_for(exc, message, write)
                if write and not idempotent:
                    raise Uncertain(f"GitHub answered {exc.status} ({message})") from exc
                last = f"{exc.status} {message}"
            except requests.RequestException as exc:
                if write and not idempotent:
                    raise Uncertain(f"no answer from GitHub ({type(exc).__name__})") from exc
                last = type(exc).__name__
            self._sleep(server_wait(attempt))
        raise BotError(f"GitHub API failed after {RETRIES + 1} attempts: {last}", Exit.FORGE)


def _message(exc: GithubException) -> str:
    data = exc.data if isinstance(exc.data, dict) else {}
    text = str(data.get("message") or exc.message or "")
    errors = data.get("errors")
    if isinstance(errors, list) and errors:
        text += ": " + "; ".join(str(e.get("message", e)) if isinstance(e, dict) else str(e)
                                 for e in errors)
    return text


def _raise_for(exc: GithubException, message: str, write: bool) -> None:
    """Errors no retry can fix."""
    if exc.status == 401:
        raise BotError(f"GitHub refused the token (401 {message}); check GITHUB_TOKEN", Exit.FORGE)
    if exc.status == 403 and write:
        raise ReadOnly(f"the token may not write here (403 {message})")
    if exc.status == 422:
        raise Refused(message)
    if exc.status == 404:
        raise NotFound(f"GitHub API error 404: {message}")
    if 400 <= exc.status < 500:
        raise BotError(f"GitHub API error {exc.status}: {message}", Exit.FORGE)


def _comment(draft: Draft) -> dict[str, Any]:
    out: dict[str, Any] = {"path": draft.path, "body": draft.body, "line": draft.line,
                           "side": "RIGHT"}
    if draft.start_line is not None and draft.line is not None and draft.start_line < draft.line:
        out.update(start_line=draft.start_line, start_side="RIGHT")
    return out


def _annotation(a: Annotation) -> dict[str, Any]:
    return {"path": a.path, "start_line": a.start_line, "end_line": a.end_line,
            "annotation_level": a.level, "title": a.title, "message": a.message}


class DryRun:
    """A Forge that sends nothing and records the exact requests a run would send.

    It reads nothing either (no token needed), so it shows a first run on a fresh PR.
    """

    def __init__(self, repository: str, number: int, head: str) -> None:
        self._prefix = f"/repos/{repository}"
        self._number = number
        self._head = head
        self.requests: list[dict[str, Any]] = []

    def _record(self, method: str, path: str, body: dict[str, Any]) -> None:
        self.requests.append({"method": method, "path": self._prefix + path, "body": body})

    def load(self) -> State:
        return State(self._head, True)

    def post(self, commit: str, body: str, drafts: Sequence[Draft]) -> list[Rejected]:
        lines = [_comment(d) for d in drafts if d.line is not None]
        if lines:
            self._record("POST", f"/pulls/{self._number}/reviews",
                         {"commit_id": commit, "body": body, "event": "COMMENT", "comments": lines})
        for d in (d for d in drafts if d.line is None):
            self._record("POST", f"/pulls/{self._number}/comments",
                         {"body": d.body, "commit_id": commit, "path": d.path, "subject_type": "file"})
        return []

    def edit(self, comment: Posted, body: str) -> None:
        self._record("PATCH", f"/pulls/comments/{comment.id}", {"body": body})

    def delete(self, comment: Posted) -> None:
        self._record("DELETE", f"/pulls/comments/{comment.id}", {})

    def resolve(self, comment: Posted, resolved: bool) -> None:
        self.requests.append({"method": "POST", "path": "/graphql", "body": {
            "query": RESOLVE if resolved else UNRESOLVE, "variables": {"id": comment.thread}}})

    def summary(self, state: State, body: str) -> None:
        self._record("POST", f"/issues/{self._number}/comments", {"body": body})

    def check(self, report: CheckReport) -> bool:
        batches = [report.annotations[i:i + ANNOTATIONS_PER_REQUEST]
                   for i in range(0, len(report.annotations), ANNOTATIONS_PER_REQUEST)] or [()]
        output = {"title": clip(report.title, 255), "summary": clip(report.summary, CHECK_TEXT_LIMIT)}
        self._record("POST", "/check-runs", {
            "name": report.name, "head_sha": report.head, "status": "completed",
            "conclusion": report.conclusion,
            "output": {**output, "annotations": [_annotation(a) for a in batches[0]]}})
        for batch in batches[1:]:
            self._record("PATCH", "/check-runs/{check_run_id}", {
                "output": {**output, "annotations": [_annotation(a) for a in batch]}})
        return True
