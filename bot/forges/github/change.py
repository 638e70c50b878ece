"""GitHub's pull request side through PyGithub (REST) and `graphql.py` (threads), and its
markdown dialect. The connection and its retry rules are `api.py`; the repository side
(replies, reactions, permissions, labels, issues) is `repository.py`. A dry run is this same
code with its writes recorded (`recording.py`).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from github.CheckRun import CheckRun
from github.Commit import Commit
from github.IssueComment import IssueComment
from github.PullRequest import PullRequest
from github.PullRequestComment import PullRequestComment

from bot.config import DEFAULT_AUTHOR
from bot.errors import GraphQLError, NotFound, ReadOnly, Refused, Uncertain
from bot.forges import base, meanwhile, sticky
from bot.forges.base import Actor, Annotation, Draft, Posted, Range, Rejected, State, StatusReport
from bot.forges.change import event_range, pull_number
from bot.forges.github import host, own
from bot.forges.github.api import PER_PAGE, RETRIES, Api, Settings
from bot.forges.hunks import head_lines
from bot.forges.limits import server_wait
from bot.forges.repository import Permission
from bot.model import Severity, Trigger
from bot.render.dialect import Dialect
from bot.render.markdown import SUMMARY_MARKER, clip, parse_marker

__all__ = ["DIALECT", "GitHubChange", "NotFound", "Refused", "Settings"]

ANNOTATIONS_PER_REQUEST = 50  # Checks API maxItems
CHECK_TEXT_LIMIT = 65_535
MAX_FILES = 3000  # "Responses include a maximum of 3000 files" (pulls/list-files)
LEVELS = {Severity.INFO: "notice", Severity.WARNING: "warning", Severity.ERROR: "failure"}


def _fence(start: int, end: int, anchor: int) -> str:
    return "suggestion"  # the block replaces the commented lines, start_line..line


# Bodies over 65,536 characters are refused (422 "Body is too long").
DIALECT = Dialect("github", body_limit=65_536, ranges=True, fence=_fence)

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


class GitHubChange:
    """One pull request (`bot.forges.base.Change`): `Settings.number`, or `number` when given."""

    name: Literal["github"] = "github"
    dialect = DIALECT
    after_push = "a push made with the workflow's GITHUB_TOKEN starts no new workflow run."
    author = DEFAULT_AUTHOR

    def __init__(self, settings: Settings, *, number: int | None = None,
                 sleep: Callable[[float], None] = time.sleep,
                 clock: Callable[[], float] = time.time, api: Api | None = None,
                 reads: Api | None = None) -> None:
        """`reads`: where the conversation's reads go when not through `api` (a dry run
        without a token: GitHub's answers to no token, which a fork check needs, not the
        recording's picture of a fresh pull request)."""
        self._number = pull_number(number, settings.number, "GitHubChange")
        self._api = api or Api(settings, sleep=sleep, clock=clock)
        self._reads = reads or self._api
        self._token = bool(settings.token and settings.repository)
        self._sleep = self._api.sleep
        self._pr: PullRequest | None = None
        self._review_comments: dict[str, PullRequestComment] = {}
        self._summary: IssueComment | None = None
        # The issue's comments summary_body(keep=True) read, and the API's writes then: the
        # next load() takes them instead of listing them again, unless a write came between.
        self._kept: tuple[int, list[dict[str, Any]]] | None = None
        self._reviewers: frozenset[str] = frozenset()  # who wrote our review comments
        self._max_batch = 1_000_000  # lowered when GitHub fails on a large review

    @property
    def api(self) -> Api:
        """The connection, to share with the repository side (`github_repository.py`)."""
        return self._api

    # -- the conversation ----------------------------------------------------------------

    def review_range(self, trigger: Trigger) -> Range:
        return event_range(trigger)

    def pull_request(self) -> base.PullRequest:
        return host.load(self._reads, self._number)

    def moved_since(self, pr: base.PullRequest, trigger: Trigger) -> str | None:
        return host.moved_since(self._reads, pr, trigger)

    def head_ref(self, number: int) -> str:
        return f"refs/pull/{number}/head"

    def summary_body(self, *, keep: bool = False) -> str | None:
        """None without a token (a dry run's: nothing of ours can be read)."""
        if not self._token:
            return None
        comments = host.issue_comments(self._reads, self._number)
        # Kept only when read where load() reads (a dry run without a token reads elsewhere).
        self._kept = (self._api.writes, comments) if keep and self._reads is self._api else None
        return host.summary_body(self._reads, self._number, comments)

    def role(self, permission: Permission) -> str:
        return permission.label

    def labeled_by(self, label: str) -> Actor | None:
        return host.labeled_by(self._reads, self._number, label) if self._token else None

    # -- reads -------------------------------------------------------------------------

    def pull(self) -> PullRequest:
        self._pr = self._api.call(lambda: self._api.repo.get_pull(self._number), write=False)
        return self._pr

    def load(self) -> State:
        pr = self.pull()
        head, is_open = self._api.call(lambda: (pr.head.sha, pr.state == "open"), write=False)
        raw = self._api.list(f"{pr.url}/comments")
        replies = {str(c["in_reply_to_id"]) for c in raw
                   if c.get("in_reply_to_id") and parse_marker(c.get("body") or "") is None}
        ours = [(c, m) for c in raw
                if (m := parse_marker(c.get("body") or "")) and not c.get("in_reply_to_id")]
        self._review_comments = {str(c["id"]): PullRequestComment(
            self._api.requester, {}, c, completed=True) for c, _ in ours}
        threads, known = self._threads() if ours else ({}, True)
        posted = []
        for comment, found in ours:
            cid = str(comment["id"])
            thread = threads.get(cid)
            posted.append(Posted(cid, found.fingerprint, found.digest, str(comment.get("path")),
                                 thread[0] if thread else None, thread[1] if thread else False,
                                 thread[2] if thread else False, cid in replies))
        self._reviewers = own.reviewers(c for c, _ in ours)
        self._summary = self._find_summary(pr)
        return State(head, is_open, tuple(posted),
                     str(self._summary.id) if self._summary else None, known)

    def diff_lines(self) -> Mapping[str, frozenset[int]]:
        files = self._api.list(f"{self._api.url}/pulls/{self._number}/files",
                               max_pages=MAX_FILES // PER_PAGE)
        if len(files) >= MAX_FILES:
            print(f"reviewbot: GitHub lists at most {MAX_FILES} files of a pull request; "
                  "comments on the others are not checked against GitHub's diff")
        # A file without `patch` (binary, or too large to show) takes no line comments.
        return {str(f["filename"]): head_lines(str(f.get("patch") or "")) for f in files}

    def _threads(self) -> tuple[dict[str, tuple[str, bool, bool]], bool]:
        """Our comments' threads by REST comment id: (thread id, resolved, resolved by us)."""
        owner, name = self._api.settings.repository.split("/", 1)
        out: dict[str, tuple[str, bool, bool]] = {}
        after: str | None = None
        try:
            while True:
                data = self._api.gql.run(THREADS, {"owner": owner, "name": name,
                                                   "number": self._number, "after": after})
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
        """Our sticky summary: a comment with the marker written by a bot account (what a
        workflow token is), else by the account that wrote our review comments (a personal
        token). Anybody can write the marker; editing their comment would be refused."""
        kept, self._kept = self._kept, None
        comments = kept[1] if kept is not None and kept[0] == self._api.writes \
            else self._api.list(f"{pr.issue_url}/comments")
        marked = [c for c in comments if SUMMARY_MARKER in (c.get("body") or "")]
        found = own.first_ours(marked, self._reviewers)
        return IssueComment(self._api.requester, {}, dict(found), completed=True) if found else None

    # -- writes ------------------------------------------------------------------------

    def post(self, commit: str, body: str, drafts: Sequence[Draft]) -> list[Rejected]:
        lines = [d for d in drafts if d.line is not None]
        rejected: list[Rejected] = []
        size = min(self._max_batch, max(1, len(lines)))
        for start in range(0, len(lines), size):
            rejected += self._review(commit, body, lines[start:start + size])
        for draft in (d for d in drafts if d.line is None):
            try:
                self._api.call(lambda d=draft: self._pr_now().create_review_comment(  # type: ignore[misc]
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
            self._api.call(lambda: self._pr_now().create_review(
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
        meanwhile.edit("comment", comment.id,
                       lambda: self._api.call(lambda: target.edit(body), write=True,
                                              idempotent=True))

    def delete(self, comment: Posted) -> None:
        target = self._review_comments.get(comment.id)
        if target is None:
            return
        meanwhile.delete(lambda: self._api.call(target.delete, write=True, idempotent=True))

    def resolve(self, comment: Posted, resolved: bool) -> None:
        if comment.thread is None:
            return
        try:
            self._api.gql.run(RESOLVE if resolved else UNRESOLVE, {"id": comment.thread},
                              mutation=True)
        except GraphQLError as exc:  # the thread stays as it was; the next run tries again
            print(f"reviewbot: could not {'resolve' if resolved else 'reopen'} a thread: "
                  f"{exc.message}")

    def summary(self, state: State, body: str) -> None:
        made = sticky.keep(body, _sticky(self._summary), self._summary_writes())
        self._summary = None if made is None else made.handle

    def _summary_writes(self) -> sticky.Writes[IssueComment]:
        def edit(current: sticky.Sticky[IssueComment], body: str) -> sticky.Sticky[IssueComment]:
            self._api.call(lambda: current.handle.edit(body), write=True, idempotent=True)
            return sticky.Sticky(current.id, body, current.handle)

        def post(body: str) -> sticky.Sticky[IssueComment] | None:
            return _sticky(self._api.call(lambda: self._pr_now().create_issue_comment(body),
                                          write=True))

        return sticky.Writes(edit, post, lambda: _sticky(self._find_summary(self._pr_now())),
                             self._sleep, server_wait, RETRIES)

    def check(self, report: StatusReport) -> bool:
        """The report as a check run; its annotations go 50 per request (they append)."""
        batches = _batches(report.annotations)
        output = _output(report)
        first = {**output, "annotations": [_annotation(a) for a in batches[0]]}
        # Names this run's check run, so a creation whose answer was lost is found, not repeated.
        marker = uuid.uuid4().hex
        try:
            run = self._create_check(report, first, marker)
        except ReadOnly as exc:
            print(f"reviewbot: cannot create a check run ({exc.message})")
            return False
        for batch in batches[1:]:
            self._api.call(lambda b=batch: run.edit(  # type: ignore[misc]
                output={**output, "annotations": [_annotation(a) for a in b]}),
                write=True, idempotent=False)
        return True

    def _create_check(self, report: StatusReport, output: dict[str, Any], marker: str) -> CheckRun:
        for attempt in range(RETRIES + 1):
            try:
                return self._api.call(lambda: self._api.repo.create_check_run(
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

    def _find_check(self, report: StatusReport, marker: str) -> CheckRun | None:
        _, data = self._api.request("GET", f"{self._api.url}/commits/{report.head}/check-runs",
                                    parameters={"check_name": report.name, "filter": "all",
                                                "per_page": PER_PAGE})
        runs = data.get("check_runs", []) if isinstance(data, dict) else []
        found = next((r for r in runs if r.get("external_id") == marker), None)
        return CheckRun(self._api.requester, {}, found, completed=True) if found else None

    # -- plumbing ----------------------------------------------------------------------

    def _pr_now(self) -> PullRequest:
        return self._pr if self._pr is not None else self.pull()

    def _commit(self, sha: str) -> Commit:
        # A complete Commit from what we know: PyGithub would GET it to read its sha.
        return Commit(self._api.requester, {},
                      {"sha": sha, "url": f"{self._api.url}/commits/{sha}"}, completed=True)


def _comment(draft: Draft) -> dict[str, Any]:
    out: dict[str, Any] = {"path": draft.path, "body": draft.body, "line": draft.line,
                           "side": "RIGHT"}
    if draft.start_line is not None and draft.line is not None and draft.start_line < draft.line:
        out.update(start_line=draft.start_line, start_side="RIGHT")
    return out


def _annotation(a: Annotation) -> dict[str, Any]:
    return {"path": a.path, "start_line": a.start_line, "end_line": a.end_line,
            "annotation_level": LEVELS[a.severity], "title": a.title, "message": a.message}


def _batches(annotations: Sequence[Annotation]) -> list[Sequence[Annotation]]:
    return [annotations[i:i + ANNOTATIONS_PER_REQUEST]
            for i in range(0, len(annotations), ANNOTATIONS_PER_REQUEST)] or [()]


def _output(report: StatusReport) -> dict[str, Any]:
    return {"title": clip(report.title, 255), "summary": clip(report.summary, CHECK_TEXT_LIMIT)}


def _sticky(comment: IssueComment | None) -> sticky.Sticky[IssueComment] | None:
    return None if comment is None else sticky.Sticky(comment.id, comment.body or "", comment)
