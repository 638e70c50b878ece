"""A fake GitHub on a loopback HTTP server: REST under /api/v3, GraphQL at /api/graphql.

Every request is validated against GitHub's published descriptions (`validate.py`); an invalid
one is answered 400 and recorded in `errors`, which the `github` fixture asserts empty. It
keeps the state a review bot touches (PR and its files, review comments and threads, reviews,
issue comments and reactions, check runs, labels, issues, collaborators), refuses review
comments outside its diff as GitHub does (422, whole review), and injects faults on demand.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

from graphql import graphql_sync

from tests.forges.loopback import Fault, json_handler
from tests.forges.validate import graphql_errors, graphql_schema, rest_errors

BOT_REST = "github-actions[bot]"
BOT_GRAPHQL = "github-actions"
NOW = "2026-01-01T00:00:00Z"


# Faults (`tests.forges.loopback.Fault`) this fake knows: `target` is "METHOD regex-on-path" or
# "graphql:query" / "graphql:mutation"; kinds: "502-after" (do it, then answer 502), "502"
# (answer 502, do nothing), "502-late" (answer 502, do it once the next listing of review
# comments has been answered), "secondary" (403 secondary rate limit with retry-after),
# "primary" and "primary-429" (the primary rate limit spent: 403 or 429 with
# x-ratelimit-remaining 0 and x-ratelimit-reset, do nothing), "422", "timeout" (do nothing,
# answer late), "timeout-after" (do it, answer late), "403" (read-only token), "deleted"
# (someone deleted the comment the request names, or the thread's first comment, just before
# it arrived: answered as GitHub answers for a comment that is gone).
FAULT_KINDS = ("502-after", "502", "502-late", "secondary", "primary", "primary-429", "422",
               "timeout", "timeout-after", "403", "deleted")
PRIMARY_RESET = 30  # seconds from now the spent primary rate limit is reset


@dataclass
class Call:
    method: str
    path: str
    query: dict[str, list[str]]
    body: Any
    status: int
    write: bool
    graphql: str | None = None  # "query" | "mutation"


@dataclass
class State:
    head: str
    diff: dict[str, set[int]]  # path -> head lines GitHub accepts comments on
    commits: set[str] = field(default_factory=set)
    state: str = "open"
    comments: dict[int, dict[str, Any]] = field(default_factory=dict)
    threads: dict[int, dict[str, Any]] = field(default_factory=dict)  # root comment id ->
    reviews: list[dict[str, Any]] = field(default_factory=list)
    issue_comments: dict[int, dict[str, Any]] = field(default_factory=dict)
    check_runs: dict[int, dict[str, Any]] = field(default_factory=dict)
    no_patch: set[str] = field(default_factory=set)  # diff files GitHub lists without `patch`
    labels: dict[int, list[str]] = field(default_factory=dict)  # issue or PR number ->
    issues: dict[int, dict[str, Any]] = field(default_factory=dict)  # number -> (not the PR)
    reactions: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # issue comment ->
    users: dict[str, dict[str, Any]] = field(default_factory=dict)  # login -> grant
    files: dict[tuple[str, str], str] = field(default_factory=dict)  # (ref, path) -> text
    pulls: dict[int, dict[str, Any]] = field(default_factory=dict)  # other PRs: number -> fields
    commit_pulls: dict[str, list[int]] = field(default_factory=dict)  # sha -> PR numbers
    issue_notes: dict[int, list[str]] = field(default_factory=dict)  # tracking issue -> comments
    note_ids: dict[int, list[int]] = field(default_factory=dict)  # tracking issue -> their ids
    # The account the token writes as: a workflow token's bot, or a personal token's user.
    writer: str = BOT_REST


class FakeGitHub:
    def __init__(self, head: str, diff: dict[str, set[int]], owner: str = "octo",
                 repo: str = "demo", number: int = 7, late: float = 1.5,
                 base: str = "0" * 40) -> None:
        self.owner, self.repo, self.number = owner, repo, number
        self.base = base  # the pull request's base commit, as GitHub reports it
        self.s = State(head, diff, {head})
        self.calls: list[Call] = []
        self.errors: list[str] = []
        self.faults: list[Fault] = []
        self.late = late  # how long a "timeout" answer takes (> the client's timeout)
        # Tokens that may read and not write (a job's GITHUB_TOKEN with `permissions: read`):
        # every write they send is answered 403, as GitHub answers it.
        self.read_only: set[str] = set()
        self._ids = itertools.count(1001)
        self._numbers = itertools.count(number + 1)
        self._deferred: list[tuple[str, str, dict[str, list[str]], Any]] = []
        self._lock = threading.RLock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0),
                                           json_handler(self.handle, "application/json; charset=utf-8"))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        host, port = self._server.server_address[:2]
        self.root = f"http://{host}:{port}"
        self.api_url = f"{self.root}/api/v3"
        self.graphql_url = f"{self.root}/api/graphql"

    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- test helpers -------------------------------------------------------------------

    def push(self, head: str, diff: dict[str, set[int]]) -> None:
        with self._lock:
            self.s.head, self.s.diff = head, diff
            self.s.commits.add(head)

    def reply(self, comment_id: int, body: str, user: str = "alice") -> int:
        with self._lock:
            root = self.s.comments[comment_id]
            return self._add_comment({"path": root["path"], "body": body, "line": root["line"],
                                      "side": "RIGHT"}, self.s.head, None, user, comment_id)

    def bot_copy(self, comment_id: int) -> int:
        """A second bot comment with the same body and line (what a lost answer leaves)."""
        with self._lock:
            root = self.s.comments[comment_id]
            return self._add_comment({"path": root["path"], "body": root["body"], "line": root["line"],
                                      "side": "RIGHT"}, self.s.head, next(self._ids), self.s.writer, None)

    def resolve_by(self, comment_id: int, user: str) -> None:
        with self._lock:
            self.s.threads[comment_id].update(resolved=True, resolved_by=user)

    def bot_comments(self) -> list[dict[str, Any]]:
        return [c for c in self.s.comments.values() if c["user"]["login"] == self.s.writer]

    def summaries(self) -> list[dict[str, Any]]:
        return [c for c in self.s.issue_comments.values()
                if "<!-- reviewbot:summary -->" in c["body"]]

    def grant(self, login: str, role: str, bot: bool = False) -> None:
        """`login` gets `role` (admin, maintain, write, triage, read) on the repository."""
        order = ["read", "triage", "write", "maintain", "admin"]
        flags = {"pull": "read", "triage": "triage", "push": "write", "maintain": "maintain",
                 "admin": "admin"}
        rank = order.index(role)
        with self._lock:
            self.s.users[login] = {
                "role_name": role, "bot": bot,
                # the legacy field: maintain reads as write, triage as read
                "permission": {"maintain": "write", "triage": "read"}.get(role, role),
                "permissions": {k: order.index(v) <= rank for k, v in flags.items()}}

    def comment_by(self, user: str, body: str) -> int:
        """An issue comment on the PR written by `user` (a slash command, say)."""
        with self._lock:
            cid = self._create_issue_comment({"body": body})[1]["id"]
            self.s.issue_comments[cid]["user"] = self._user(user)
            return int(cid)

    def merged(self, number: int, author: str, shas: list[str], title: str = "a change") -> None:
        """Pull request `number` by `author`, merged with the commits `shas`."""
        with self._lock:
            self.s.pulls[number] = {"author": author, "title": title}
            for sha in shas:
                self.s.commit_pulls.setdefault(sha, []).append(number)

    def count(self, *, write: bool) -> int:
        return sum(1 for c in self.calls if c.write == write)

    def reset_calls(self) -> None:
        self.calls.clear()

    # -- dispatch -----------------------------------------------------------------------

    def handle(self, method: str, raw_path: str, headers: dict[str, str], body: bytes
               ) -> tuple[int, dict[str, str], Any]:
        split = urlsplit(raw_path)
        query = parse_qs(split.query, keep_blank_values=True)
        path = split.path
        if not any(k.lower() == "authorization" for k in headers):
            return self._record(method, path, query, body, 401, {"message": "Requires authentication"})
        token = next(v for k, v in headers.items() if k.lower() == "authorization").split()[-1]
        if token in self.read_only and (method != "GET" or b"mutation" in body):
            return self._record(method, path, query, body, 403,
                                {"message": "Resource not accessible by integration"},
                                graphql="mutation" if path == "/api/graphql" else None)
        if path == "/api/graphql" and method == "POST":
            return self._graphql(body)
        if not path.startswith("/api/v3/"):
            return self._invalid(method, path, query, body, f"{method} {path}: not an API path")
        rest = path[len("/api/v3"):]
        errors = rest_errors(method, rest, query, body or None, headers)
        if errors:
            return self._invalid(method, rest, query, body, *errors)
        fault = self._fault(f"{method} {rest}")
        if fault == "502-late":  # answered 502, carried out after the next re-read
            self._deferred.append((method, rest, query, _json(body)))
            return self._faulted(method, rest, query, body, "502")
        if fault in ("502", "secondary", "primary", "primary-429", "422", "timeout", "403"):
            return self._faulted(method, rest, query, body, fault)
        if fault == "deleted":
            self._delete_named(rest)
        status, payload = self._route(method, rest, query, _json(body))
        if method == "GET" and re.search(r"/pulls/\d+/comments$", rest):
            deferred, self._deferred = self._deferred, []
            for args in deferred:  # the listing just answered did not show it yet
                self._route(*args)
        if fault in ("502-after", "timeout-after"):
            return self._faulted(method, rest, query, body, fault.split("-")[0])
        return self._record(method, rest, query, body, status, payload, self._links(rest, query, payload))

    def _record(self, method: str, path: str, query: dict[str, list[str]], body: bytes, status: int,
                payload: Any, headers: dict[str, str] | None = None, graphql: str | None = None
                ) -> tuple[int, dict[str, str], Any]:
        write = graphql == "mutation" if graphql else method != "GET"
        self.calls.append(Call(method, path, query, _json(body), status, write, graphql))
        base = {"x-ratelimit-limit": "5000", "x-ratelimit-remaining": "4999",
                "x-ratelimit-reset": str(int(time.time()) + 3600)}
        return status, {**base, **(headers or {})}, payload

    def _invalid(self, method: str, path: str, query: dict[str, list[str]], body: bytes,
                 *errors: str) -> tuple[int, dict[str, str], Any]:
        self.errors.extend(errors)
        return self._record(method, path, query, body, 400, {"message": "; ".join(errors)})

    def _fault(self, target: str, graphql: str | None = None) -> str | None:
        with self._lock:
            for fault in self.faults:
                assert fault.kind in FAULT_KINDS, f"no such fault kind: {fault.kind!r}"
                kind, _, pattern = fault.target.partition(" ")
                hit = (graphql is not None and fault.target == f"graphql:{graphql}") or (
                    graphql is None and target.startswith(kind + " ") and
                    re.search(pattern, target.split(" ", 1)[1]) is not None)
                if hit and fault.hit < fault.times:
                    fault.hit += 1
                    return fault.kind
        return None

    def _faulted(self, method: str, path: str, query: dict[str, list[str]], body: bytes, kind: str
                 ) -> tuple[int, dict[str, str], Any]:
        if kind == "timeout":
            time.sleep(self.late)
            return self._record(method, path, query, body, 504, {"message": "late"})
        if kind == "secondary":
            return self._record(method, path, query, body, 403, {
                "message": "You have exceeded a secondary rate limit. Please wait a few minutes "
                           "before you try again."}, {"retry-after": "7"})
        if kind in ("primary", "primary-429"):
            return self._record(
                method, path, query, body, 429 if kind == "primary-429" else 403,
                {"message": "API rate limit exceeded for installation ID 1.",
                 "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"},
                {"x-ratelimit-remaining": "0", "x-ratelimit-used": "5000",
                 "x-ratelimit-reset": str(int(time.time()) + PRIMARY_RESET)})
        if kind == "403":
            return self._record(method, path, query, body, 403,
                                {"message": "Resource not accessible by integration"})
        if kind == "422":
            return self._record(method, path, query, body, 422, {
                "message": "Unprocessable Entity",
                "errors": ["Pull request review thread line must be part of the diff"]})
        return self._record(method, path, query, body, 502, {"message": "Server Error"})

    def _delete_named(self, rest: str) -> None:
        """The comment a request names removed, as a person deleting it would."""
        with self._lock:
            found = re.search(r"/(pulls|issues)/comments/(\d+)", rest)
            if found and found.group(1) == "pulls":
                self._delete(int(found.group(2)))
            elif found:
                self.s.issue_comments.pop(int(found.group(2)), None)

    # -- REST ---------------------------------------------------------------------------

    def _route(self, method: str, path: str, query: dict[str, list[str]], body: Any
               ) -> tuple[int, Any]:
        prefix = f"/repos/{self.owner}/{self.repo}"
        if not path.startswith(prefix + "/"):
            return 404, {"message": "Not Found"}
        rest = path[len(prefix):]
        n = str(self.number)
        with self._lock:
            routes: list[tuple[str, str, Any]] = [
                ("GET", f"/pulls/{n}", lambda m: (200, self._pull())),
                ("GET", f"/pulls/{n}/comments", lambda m: (200, self._page(
                    sorted(self.s.comments.values(), key=lambda c: c["id"]), query))),
                ("POST", f"/pulls/{n}/reviews", lambda m: self._create_review(body)),
                ("POST", f"/pulls/{n}/comments", lambda m: self._create_file_comment(body)),
                ("PATCH", r"/pulls/comments/(\d+)", lambda m: self._edit(self.s.comments, m, body)),
                ("DELETE", r"/pulls/comments/(\d+)", lambda m: self._delete(int(m.group(1)))),
                ("GET", f"/issues/{n}/comments", lambda m: (200, self._page(
                    sorted(self.s.issue_comments.values(), key=lambda c: c["id"]), query))),
                ("POST", f"/issues/{n}/comments", lambda m: self._create_issue_comment(body)),
                ("PATCH", r"/issues/comments/(\d+)",
                 lambda m: self._edit(self.s.issue_comments, m, body)),
                ("POST", "/check-runs", lambda m: self._check_run(None, body)),
                ("GET", r"/commits/([0-9a-f]{40})/check-runs", lambda m: (200, self._check_runs(
                    m.group(1), query))),
                ("PATCH", r"/check-runs/(\d+)", lambda m: self._check_run(int(m.group(1)), body)),
                ("GET", f"/pulls/{n}/files", lambda m: (200, self._page(self._files(), query))),
                ("POST", r"/issues/comments/(\d+)/reactions",
                 lambda m: self._react(int(m.group(1)), body)),
                ("GET", r"/collaborators/([^/]+)/permission",
                 lambda m: self._permission(unquote(m.group(1)))),
                ("POST", r"/issues/(\d+)/labels", lambda m: self._add_labels(int(m.group(1)), body)),
                ("DELETE", r"/issues/(\d+)/labels/([^/]+)",
                 lambda m: self._remove_label(int(m.group(1)), unquote(m.group(2)))),
                ("GET", "/issues", lambda m: (200, self._page(self._list_issues(query), query))),
                ("POST", "/issues", lambda m: self._create_issue(body)),
                ("PATCH", r"/issues/(\d+)", lambda m: self._update_issue(int(m.group(1)), body)),
                ("GET", r"/contents/(.+)", lambda m: self._contents(unquote(m.group(1)), query)),
                ("GET", r"/commits/([0-9a-f]{40})/pulls", lambda m: (200, self._page(
                    self._commit_pulls(m.group(1)), query))),
                ("POST", r"/issues/(\d+)/comments",
                 lambda m: self._note(int(m.group(1)), body)),
                ("GET", r"/issues/(\d+)/comments", lambda m: (200, self._page(
                    self._notes(int(m.group(1))), query)) if int(m.group(1)) in self.s.issues
                 else (404, {"message": "Not Found"})),
            ]
            for verb, pattern, action in routes:
                match = re.fullmatch(pattern, rest)
                if verb == method and match:
                    result: tuple[int, Any] = action(match)
                    return result
        self.errors.append(f"{method} {path}: valid for GitHub but not implemented by the fake")
        return 404, {"message": "Not Found"}

    def _contents(self, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        ref = (query.get("ref") or ["main"])[0]
        text = self.s.files.get((ref, path))
        if text is None:
            return 404, {"message": "Not Found"}
        data = text.encode()
        return 200, {"type": "file", "encoding": "base64", "size": len(data), "name":
                     path.rsplit("/", 1)[-1], "path": path, "sha": "0" * 40,
                     "content": base64.b64encode(data).decode(), "url": self._url(f"/contents/{path}")}

    def _url(self, tail: str) -> str:
        return f"{self.api_url}/repos/{self.owner}/{self.repo}{tail}"

    def _user(self, login: str) -> dict[str, Any]:
        return {"login": login, "id": 41898282 if login == BOT_REST else 1,
                "type": "Bot" if login == BOT_REST else "User"}

    def _pull(self) -> dict[str, Any]:
        repo = {"id": 1, "name": self.repo, "full_name": f"{self.owner}/{self.repo}",
                "url": self._url("")}
        return {"id": 1, "number": self.number, "state": self.s.state, "url":
                self._url(f"/pulls/{self.number}"), "issue_url": self._url(f"/issues/{self.number}"),
                "head": {"sha": self.s.head, "ref": "feature", "repo": repo},
                "base": {"sha": self.base, "ref": "main", "repo": repo}, "draft": False}

    def _page(self, items: list[dict[str, Any]], query: dict[str, list[str]]) -> Page:
        size, page = int(query.get("per_page", ["30"])[0]), int(query.get("page", ["1"])[0])
        return Page(items[(page - 1) * size: page * size], len(items))

    def _links(self, path: str, query: dict[str, list[str]], payload: Any) -> dict[str, str]:
        if not isinstance(payload, Page):
            return {}
        size, page = int(query.get("per_page", ["30"])[0]), int(query.get("page", ["1"])[0])
        if page * size >= payload.total:
            return {}
        following = {**query, "per_page": [str(size)], "page": [str(page + 1)]}
        return {"link": f'<{self.api_url}{path}?{urlencode(following, doseq=True)}>; rel="next"'}

    def _check_lines(self, path: str, line: int | None, start: int | None) -> str | None:
        if path not in self.s.diff:
            return "Pull request review thread path is invalid"
        if line is None:
            return None
        lines = range(start or line, line + 1)
        if start is not None and start >= line:
            return "Pull request review thread start line must precede the end line"
        if any(n not in self.s.diff[path] for n in lines):
            return "Pull request review thread line must be part of the diff"
        return None

    def _create_review(self, body: dict[str, Any]) -> tuple[int, Any]:
        if body.get("event") != "COMMENT" or not body.get("body"):
            return 422, {"message": "a COMMENT review needs a body"}
        commit = body.get("commit_id", self.s.head)
        if commit not in self.s.commits:
            return 422, {"message": "Unprocessable Entity",
                         "errors": ["commit_id is not part of the pull request"]}
        for c in body.get("comments", []):
            if "line" not in c:
                return 422, {"message": "Unprocessable Entity", "errors": ["Line could not be resolved"]}
            problem = self._check_lines(c["path"], c["line"], c.get("start_line"))
            if problem:  # all or nothing, like GitHub
                return 422, {"message": "Unprocessable Entity", "errors": [problem]}
        review_id = next(self._ids)
        self.s.reviews.append({"id": review_id, "body": body["body"], "commit_id": commit})
        for c in body.get("comments", []):
            self._add_comment(c, commit, review_id, self.s.writer, None)
        return 200, {"id": review_id, "node_id": f"PRR_{review_id}", "body": body["body"],
                     "state": "COMMENTED", "commit_id": commit, "user": self._user(self.s.writer),
                     "html_url": "", "pull_request_url": self._url(f"/pulls/{self.number}"),
                     "submitted_at": NOW, "author_association": "NONE",
                     "_links": {"html": {"href": ""}, "pull_request": {"href": ""}}}

    def _create_file_comment(self, body: dict[str, Any]) -> tuple[int, Any]:
        if body.get("subject_type") != "file" or body.get("commit_id") not in self.s.commits:
            return 422, {"message": "Unprocessable Entity", "errors": ["unsupported comment"]}
        problem = self._check_lines(body["path"], None, None)
        if problem:
            return 422, {"message": "Unprocessable Entity", "errors": [problem]}
        cid = self._add_comment({**body, "line": None}, body["commit_id"], next(self._ids),
                                self.s.writer, None)
        return 201, self.s.comments[cid]

    def _add_comment(self, c: dict[str, Any], commit: str, review: int | None, user: str,
                     reply_to: int | None) -> int:
        cid = next(self._ids)
        self.s.comments[cid] = {
            "id": cid, "node_id": f"PRRC_{cid}", "url": self._url(f"/pulls/comments/{cid}"),
            "pull_request_review_id": review, "diff_hunk": "@@", "path": c["path"],
            "commit_id": commit, "original_commit_id": commit, "user": self._user(user),
            "body": c["body"], "created_at": NOW, "updated_at": NOW, "html_url": "",
            "pull_request_url": self._url(f"/pulls/{self.number}"), "author_association": "NONE",
            "_links": {}, "line": c.get("line"), "original_line": c.get("line"),
            "side": "RIGHT", "start_line": c.get("start_line"),
            "subject_type": "file" if c.get("line") is None else "line",
            **({"in_reply_to_id": reply_to} if reply_to else {})}
        if reply_to is None:
            self.s.threads[cid] = {"id": f"PRRT_{cid}", "resolved": False, "resolved_by": None}
        return cid

    def _edit(self, store: dict[int, dict[str, Any]], match: re.Match[str], body: dict[str, Any]
              ) -> tuple[int, Any]:
        cid = int(match.group(1))
        if cid not in store:
            return 404, {"message": "Not Found"}
        store[cid].update(body=body["body"], updated_at=NOW)
        store[cid]["edits"] = store[cid].get("edits", 0) + 1
        return 200, {k: v for k, v in store[cid].items() if k != "edits"}

    def _delete(self, cid: int) -> tuple[int, Any]:
        if self.s.comments.pop(cid, None) is None:
            return 404, {"message": "Not Found"}
        self.s.threads.pop(cid, None)
        return 204, None

    def _create_issue_comment(self, body: dict[str, Any]) -> tuple[int, Any]:
        cid = next(self._ids)
        self.s.issue_comments[cid] = {
            "id": cid, "node_id": f"IC_{cid}", "url": self._url(f"/issues/comments/{cid}"),
            "html_url": "", "issue_url": self._url(f"/issues/{self.number}"), "body": body["body"],
            "user": self._user(self.s.writer), "created_at": NOW, "updated_at": NOW,
            "author_association": "NONE"}
        return 201, self.s.issue_comments[cid]

    def _check_runs(self, sha: str, query: dict[str, list[str]]) -> dict[str, Any]:
        name = (query.get("check_name") or [None])[0]
        runs = [self._check_run_json(r) for r in self.s.check_runs.values()
                if r.get("head_sha") == sha and (name is None or r.get("name") == name)]
        return {"total_count": len(runs), "check_runs": runs}

    def _check_run_json(self, run: dict[str, Any]) -> dict[str, Any]:
        return {"id": run["id"], "url": self._url(f"/check-runs/{run['id']}"), "name": run.get("name"),
                "head_sha": run.get("head_sha"), "status": run.get("status"),
                "conclusion": run.get("conclusion"), "external_id": run.get("external_id")}

    def _check_run(self, run_id: int | None, body: dict[str, Any]) -> tuple[int, Any]:
        output = body.get("output") or {}
        if len(output.get("annotations", [])) > 50:
            return 422, {"message": "Only 50 annotations per request"}
        if run_id is None:
            run_id = next(self._ids)
            self.s.check_runs[run_id] = {"id": run_id, "annotations": []}
        run = self.s.check_runs.get(run_id)
        if run is None:
            return 404, {"message": "Not Found"}
        run.update({k: v for k, v in body.items() if k != "output"}, output=output)
        run["annotations"] = run["annotations"] + output.get("annotations", [])  # they append
        return (201 if "head_sha" in body else 200), self._check_run_json(run)

    # -- files, reactions, permissions, labels, issues ---------------------------------------

    def _files(self) -> list[dict[str, Any]]:
        """The PR's files as GitHub lists them; each `patch` has exactly the configured lines
        inside its hunks (consecutive runs become hunks of unchanged lines)."""
        out = []
        for path in sorted(self.s.diff):
            lines = sorted(self.s.diff[path])
            entry: dict[str, Any] = {
                "sha": "0" * 40, "filename": path, "status": "modified", "additions": 0,
                "deletions": 0, "changes": 0, "blob_url": "", "raw_url": "", "contents_url": ""}
            if path not in self.s.no_patch:
                entry["patch"] = "\n".join(_hunk(run) for run in _runs(lines))
            out.append(entry)
        return out

    def _react(self, comment_id: int, body: dict[str, Any]) -> tuple[int, Any]:
        if comment_id not in self.s.issue_comments:
            return 404, {"message": "Not Found"}
        given = self.s.reactions.setdefault(comment_id, [])
        for reaction in given:
            if reaction["content"] == body["content"]:
                return 200, reaction  # already there: GitHub answers 200, not a second one
        reaction = {"id": next(self._ids), "node_id": "REA_x", "user": self._user(self.s.writer),
                    "content": body["content"], "created_at": NOW}
        given.append(reaction)
        return 201, reaction

    def _permission(self, login: str) -> tuple[int, Any]:
        grant = self.s.users.get(login)
        if grant is None:
            return 404, {"message": "Not Found"}
        user = {**self._user(login), "type": "Bot" if grant["bot"] else "User",
                "permissions": grant["permissions"], "role_name": grant["role_name"]}
        return 200, {"permission": grant["permission"], "role_name": grant["role_name"],
                     "user": user}

    def _label(self, name: str) -> dict[str, Any]:
        return {"id": 1, "node_id": "LA_x", "url": self._url(f"/labels/{name}"), "name": name,
                "color": "ededed", "default": False, "description": None}

    def _known(self, number: int) -> bool:
        return number == self.number or number in self.s.issues

    def _add_labels(self, number: int, body: dict[str, Any]) -> tuple[int, Any]:
        if not self._known(number):
            return 404, {"message": "Not Found"}
        labels = self.s.labels.setdefault(number, [])
        labels += [name for name in body["labels"] if name not in labels]
        return 200, [self._label(name) for name in labels]

    def _remove_label(self, number: int, name: str) -> tuple[int, Any]:
        labels = self.s.labels.get(number, [])
        if name not in labels:
            return 404, {"message": "Label does not exist"}
        labels.remove(name)
        return 200, [self._label(n) for n in labels]

    def _commit_pulls(self, sha: str) -> list[dict[str, Any]]:
        out = []
        for number in self.s.commit_pulls.get(sha, []):
            pull = self.s.pulls[number]
            out.append({"id": number, "node_id": f"PR_{number}", "number": number, "state": "closed",
                        "title": pull["title"], "user": self._user(pull["author"]),
                        "url": self._url(f"/pulls/{number}"), "html_url": "",
                        "merged_at": NOW, "merge_commit_sha": sha, "labels": []})
        return out

    def _note(self, number: int, body: dict[str, Any]) -> tuple[int, Any]:
        """A comment on a tracking issue (the pull request's own are `issue_comments`)."""
        if number not in self.s.issues:
            return 404, {"message": "Not Found"}
        self.s.issue_notes.setdefault(number, []).append(body["body"])
        cid = next(self._ids)
        self.s.note_ids.setdefault(number, []).append(cid)
        return 201, self._note_json(number, cid, body["body"])

    def _notes(self, number: int) -> list[dict[str, Any]]:
        return [self._note_json(number, cid, text) for cid, text in
                zip(self.s.note_ids.get(number, []), self.s.issue_notes.get(number, []), strict=True)]

    def _note_json(self, number: int, cid: int, text: str) -> dict[str, Any]:
        return {"id": cid, "node_id": f"IC_{cid}", "url": self._url(f"/issues/comments/{cid}"),
                "html_url": "", "issue_url": self._url(f"/issues/{number}"), "body": text,
                "user": self._user(self.s.writer), "created_at": NOW, "updated_at": NOW,
                "author_association": "NONE"}

    def _issue_json(self, number: int) -> dict[str, Any]:
        issue = self.s.issues.get(number) or {"title": "the pull request", "body": "",
                                              "state": self.s.state}
        out = {"id": number, "node_id": f"I_{number}", "number": number, "url":
               self._url(f"/issues/{number}"), "html_url": "", "title": issue["title"],
               "body": issue["body"], "state": issue["state"], "user": self._user(self.s.writer),
               "labels": [self._label(n) for n in self.s.labels.get(number, [])],
               "created_at": NOW, "updated_at": NOW}
        if number == self.number:
            out["pull_request"] = {"url": self._url(f"/pulls/{number}")}
        return out

    def _list_issues(self, query: dict[str, list[str]]) -> list[dict[str, Any]]:
        state = query.get("state", ["open"])[0]
        wanted = [n for n in (query.get("labels", [""])[0]).split(",") if n]
        out = []
        for number in sorted({self.number, *self.s.issues}):
            issue = self._issue_json(number)
            if state != "all" and issue["state"] != state:
                continue
            if all(n in self.s.labels.get(number, []) for n in wanted):
                out.append(issue)
        return out

    def _create_issue(self, body: dict[str, Any]) -> tuple[int, Any]:
        number = next(self._numbers)
        self.s.issues[number] = {"title": body["title"], "body": body.get("body") or "",
                                 "state": "open"}
        self.s.labels[number] = [str(n) for n in body.get("labels", [])]
        return 201, self._issue_json(number)

    def _update_issue(self, number: int, body: dict[str, Any]) -> tuple[int, Any]:
        issue = self.s.issues.get(number)
        if issue is None:
            return 404, {"message": "Not Found"}
        issue.update({k: body[k] for k in ("title", "body", "state") if k in body})
        if "labels" in body:
            self.s.labels[number] = [str(n) for n in body["labels"]]
        issue["edits"] = issue.get("edits", 0) + 1
        return 200, self._issue_json(number)

    # -- GraphQL ------------------------------------------------------------------------

    def _graphql(self, body: bytes) -> tuple[int, dict[str, str], Any]:
        request = _json(body) or {}
        document = str(request.get("query", ""))
        kind = "mutation" if document.lstrip().startswith("mutation") else "query"
        errors = graphql_errors(document)
        if errors:
            self.errors.extend(errors)
            return self._record("POST", "/api/graphql", {}, body, 200,
                                {"errors": [{"message": e} for e in errors]}, graphql=kind)
        fault = self._fault("", kind)
        if fault in ("timeout", "502", "secondary", "primary", "primary-429"):
            return self._faulted("POST", "/api/graphql", {}, body, fault)
        if fault == "deleted":  # the thread's first comment deleted: the thread is gone
            with self._lock:
                for root, thread in list(self.s.threads.items()):
                    if thread["id"] in (request.get("variables") or {}).values():
                        self._delete(root)
        with self._lock:
            result = graphql_sync(graphql_schema(), document, root_value=self._gql_root(),
                                  variable_values=request.get("variables"))
        # A node that is not there is an answer GitHub gives (NOT_FOUND), not a bad request.
        if result.errors and not all(e.message.startswith("Could not resolve") for e in result.errors):
            self.errors.extend(f"GraphQL execution: {e.message}" for e in result.errors)
        payload = {"data": result.data, **({"errors": [{"message": e.message} for e in result.errors]}
                                             if result.errors else {})}
        if fault == "timeout-after":
            return self._faulted("POST", "/api/graphql", {}, body, "timeout")
        return self._record("POST", "/api/graphql", {}, body, 200, payload, graphql=kind)

    def _gql_root(self) -> dict[str, Any]:
        return {"repository": lambda info, owner, name, **kw: {"pullRequest": self._gql_pull}
                if (owner, name) == (self.owner, self.repo) else None,
                "resolveReviewThread": lambda info, input: self._gql_resolve(input, True),
                "unresolveReviewThread": lambda info, input: self._gql_resolve(input, False)}

    def _gql_pull(self, info: Any, number: int) -> dict[str, Any] | None:
        if number != self.number:
            return None
        return {"reviewThreads": self._gql_threads}

    def _gql_threads(self, info: Any, first: int | None = None, after: str | None = None,
                     **kw: Any) -> dict[str, Any]:
        roots = sorted(self.s.threads)
        start = int(after) if after else 0
        size = first or 100
        page = roots[start:start + size]
        return {"pageInfo": {"hasNextPage": start + size < len(roots),
                             "endCursor": str(start + size)},
                "nodes": [self._gql_thread(root) for root in page]}

    def _gql_thread(self, root: int) -> dict[str, Any]:
        thread = self.s.threads[root]
        members = [c for c in self.s.comments.values()
                   if c["id"] == root or c.get("in_reply_to_id") == root]

        def comments(info: Any, first: int | None = None, **kw: Any) -> dict[str, Any]:
            nodes = [{"fullDatabaseId": str(c["id"]), "body": c["body"],
                      "author": {"__typename": "Bot" if c["user"]["login"] == BOT_REST else "User",
                                 "login": BOT_GRAPHQL if c["user"]["login"] == BOT_REST
                                 else c["user"]["login"]}} for c in members]
            return {"totalCount": len(nodes), "nodes": nodes[: first or 100]}

        resolver = thread["resolved_by"]
        return {"id": thread["id"], "isResolved": thread["resolved"], "isOutdated": False,
                "path": self.s.comments[root]["path"], "comments": comments,
                "resolvedBy": {"login": resolver} if resolver else None}

    def _gql_resolve(self, data: dict[str, Any], resolved: bool) -> dict[str, Any]:
        for root, thread in self.s.threads.items():
            if thread["id"] == data["threadId"]:
                thread.update(resolved=resolved, resolved_by=BOT_GRAPHQL if resolved else None)
                return {"thread": self._gql_thread(root)}
        raise ValueError(f"Could not resolve to a node with the global id of '{data['threadId']}'")


class Page(list[dict[str, Any]]):
    """One page of a list endpoint, knowing how many items all pages hold."""

    def __init__(self, items: list[dict[str, Any]], total: int) -> None:
        super().__init__(items)
        self.total = total


def _runs(lines: list[int]) -> list[list[int]]:
    out: list[list[int]] = []
    for n in lines:
        if out and out[-1][-1] == n - 1:
            out[-1].append(n)
        else:
            out.append([n])
    return out


def _hunk(run: list[int]) -> str:
    body = "\n".join(f" line {n}" for n in run)
    return f"@@ -{run[0]},{len(run)} +{run[0]},{len(run)} @@\n{body}"


def _json(body: bytes | None) -> Any:
    if not body:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None
