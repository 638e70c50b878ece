"""A fake Bitbucket Cloud behind `httpx.MockTransport`: REST under /2.0, for one repository
(`octo/demo`) and its pull request #1.

Every request is checked against Bitbucket's own description, cut into
`tests/forges/bitbucket/` (see its README), by the shared validator
(`tests/forges/validate.py`, `Swagger`): the operation exists, its path and query parameters
are declared with the right types, its JSON body validates with undeclared keys refused. The
two query parameters Bitbucket documents once for every collection rather than per operation
(`page`, `pagelen`: its "Pagination" page) and `fields` (partial responses) are accepted on the
operations that answer a `paginated_*` page. Every JSON answer of the fake is checked against
the operation's response schema too. What is wrong goes to `errors` (a request is answered
400), which the tests assert empty.

Behaviour follows Bitbucket where the bot depends on it: a pull request's diff and diffstat
answer 302 to the repository's `diff/{spec}` and `diffstat/{spec}` (`head..base`: the head
against the merge base), from real git in a real repository; a deleted comment stays in the
list with `deleted: true`; only a top-level comment is resolved, once (409 the second time);
only its author edits a comment; a report's annotations go with it when it is replaced or
deleted, and a report holds 1000 at most; a custom pipeline runs only if the repository's
`bitbucket-pipelines.yml` defines it (`custom_pipelines`); issues exist only where the
tracker is on (`has_issues`); only a caller with admin permission on the repository reads
the others' permissions (the operation's description says so); a commit's pull requests are
the ones `merged_in` names for it (404 where none is indexed, as before Bitbucket's pull
request commit links are installed).
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

import httpx

from tests.forges.loopback import Fault
from tests.forges.validate import Swagger, swagger

WORKSPACE, SLUG = "octo", "demo"
REPOSITORY = f"{WORKSPACE}/{SLUG}"
SERVER = "https://api.bitbucket.test"
API = f"{SERVER}/2.0"
BASE = "/2.0"
SUBSET = Path(__file__).resolve().parent / "bitbucket" / "bitbucket-cloud-subset.json"
BOT = {"uuid": "{00000000-0000-4000-8000-000000000050}", "account_id": "bot:50",
       "nickname": "reviewbot", "display_name": "reviewbot"}
HUMAN = {"uuid": "{00000000-0000-4000-8000-000000000007}", "account_id": "557058:7",
         "nickname": "alice", "display_name": "Alice"}
TOKENS = {"bot-token": BOT, "alice-token": HUMAN}
NOW = "2026-01-01T00:00:00+00:00"
FAULT_KINDS = ("500-before", "500-after", "429", "403", "404", "timeout-before", "timeout-after")
PAGED = ("page", "pagelen", "fields")
MAX_ANNOTATIONS = 1000  # per report (Bitbucket's Code Insights limits)


def description() -> Swagger:
    return swagger(SUBSET, "Bitbucket Cloud")


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    query: dict[str, list[str]]
    body: Any

    @property
    def write(self) -> bool:
        return self.method != "GET"


@dataclass
class FakeBitbucket:
    repo: Path  # a git repository with `base` and `head` branches
    base: str = "main"
    head: str = "feature"
    number: int = 1
    has_issues: bool = True
    custom_pipelines: set[str] = field(default_factory=lambda: {"reviewbot"})
    permissions: dict[str, str] = field(default_factory=lambda: {
        HUMAN["account_id"]: "write", BOT["account_id"]: "write"})
    errors: list[str] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    comments: list[dict[str, Any]] = field(default_factory=list)
    tasks: list[dict[str, Any]] = field(default_factory=list)
    statuses: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    reports: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    annotations: dict[tuple[str, str], list[dict[str, Any]]] = field(default_factory=dict)
    issues: dict[int, dict[str, Any]] = field(default_factory=dict)
    pipelines: list[dict[str, Any]] = field(default_factory=list)
    issue_comments: list[dict[str, Any]] = field(default_factory=list)
    # A commit's pull requests (`GET commit/{commit}/pullrequests`): number, author, state.
    merged_in: dict[str, list[tuple[int, dict[str, Any], str]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._ids = itertools.count(100)
        self._path = ""
        self.head_sha = self._git("rev-parse", self.head).strip()

    # -- the test's side -------------------------------------------------------------------

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    def push(self) -> None:
        """The head branch as pushed now."""
        self.head_sha = self._git("rev-parse", self.head).strip()

    def base_sha(self) -> str:
        return self._git("merge-base", self.base, self.head_sha).strip()

    def diff_lines(self) -> dict[str, set[int]]:
        """Per file, the head's lines the pull request's diff shows (added or context)."""
        out: dict[str, set[int]] = {}
        path = None
        for line in self._git("diff", "--no-color", self.base_sha(), self.head_sha).splitlines():
            if line.startswith("+++ "):
                path = None if line == "+++ /dev/null" else line[6:]
                if path is not None:
                    out.setdefault(path, set())
            found = re.match(r"@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", line)
            if found and path is not None:
                start, count = int(found.group(1)), int(found.group(2) or 1)
                out[path] |= set(range(start, start + count))
        return out

    def reply(self, comment_id: int, text: str, user: dict[str, Any] = HUMAN) -> dict[str, Any]:
        """A reply to `comment_id`, as Bitbucket's page makes one (same anchor, `parent`)."""
        target = next(c for c in self.comments if c["id"] == comment_id)
        comment = {"id": next(self._ids), "raw": text, "user": user, "parent": comment_id,
                   "deleted": False, "created_on": NOW, "updated_on": NOW,
                   **({"inline": dict(target["inline"])} if "inline" in target else {})}
        self.comments.append(comment)
        return comment

    def writes(self) -> list[Call]:
        return [c for c in self.calls if c.write]

    def bot_comments(self) -> list[dict[str, Any]]:
        return [c for c in self.comments if c["user"] is BOT and not c["deleted"]]

    # -- the HTTP side -----------------------------------------------------------------------

    def handle(self, request: httpx.Request) -> httpx.Response:
        url = urlsplit(str(request.url))
        path = unquote(url.path).removeprefix(BASE)
        query = parse_qs(url.query, keep_blank_values=True)
        body = request.content
        method = request.method
        try:
            value = json.loads(body) if body else None
        except ValueError:
            value = body
        self.calls.append(Call(method, path, query, value))
        self._path = url.path
        problems = self._paging_errors(method, path, query)
        described = {k: v for k, v in query.items() if not (k in PAGED and self._paged(
            method, path, query))}
        problems += description().request_errors(method, path, described, body,
                                                  request.headers.get("content-type"))
        if problems:
            self.errors += problems
            return self._json(400, _error("; ".join(problems)))
        token = (request.headers.get("authorization") or "").removeprefix("Bearer ")
        user = TOKENS.get(token)
        if user is None:
            return self._json(401, _error("Unauthorized"))
        fault = self._fault(method, path)
        if fault in ("500-before", "429", "403", "404", "timeout-before"):
            return self._faulted(fault, request)
        status, payload, headers = self._route(method, path, query, value, user)
        if fault in ("500-after", "timeout-after"):
            return self._faulted(fault, request)
        if isinstance(payload, (bytes, str)):
            data = payload.encode() if isinstance(payload, str) else payload
            return httpx.Response(status, content=data,
                                  headers={"content-type": "text/plain", **headers})
        if status < 400:
            self.errors += description().response_errors(method, path, described, status,
                                                         payload)
        return self._json(status, payload, headers)

    def _paged(self, method: str, path: str, query: dict[str, list[str]]) -> bool:
        found = description().operation(method, path, query)
        if found is None or method != "GET":
            return False
        answer = found.op.get("responses", {}).get("200", {}).get("schema", {})
        return str(answer.get("$ref", "")).startswith("#/definitions/paginated_")

    def _paging_errors(self, method: str, path: str, query: dict[str, list[str]]) -> list[str]:
        if not self._paged(method, path, query):
            return []
        return [f"{method} {path}: {k}={v!r} is not a positive integer"
                for k in ("page", "pagelen") for v in query.get(k, [])
                if not re.fullmatch(r"[1-9]\d*", v)]

    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None
              ) -> httpx.Response:
        content = b"" if payload is None else json.dumps(payload).encode()
        return httpx.Response(status, content=content,
                              headers={"content-type": "application/json", **(headers or {})})

    def _fault(self, method: str, path: str) -> str | None:
        for fault in self.faults:
            if fault.hit < fault.times and re.fullmatch(fault.target, f"{method} {path}"):
                fault.hit += 1
                return fault.kind
        return None

    def _faulted(self, kind: str, request: httpx.Request) -> httpx.Response:
        if kind.startswith("timeout"):
            raise httpx.ReadTimeout("timed out", request=request)
        if kind == "429":
            return self._json(429, _error("Rate limit for this resource has been exceeded"),
                              {"Retry-After": "3"})
        if kind == "404":
            return self._json(404, _error("Not found"))
        if kind == "403":
            return self._json(403, _error("Your credentials lack one or more required "
                                          "privilege scopes."))
        return self._json(500, _error("Something went wrong"))

    def _route(self, method: str, path: str, query: dict[str, list[str]], body: Any,
               user: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        if path == "/user":
            return 200, _account(user), {}
        permission = re.fullmatch(r"/workspaces/([^/]+)/permissions/repositories/([^/]+)", path)
        if permission:
            if f"{permission.group(1)}/{permission.group(2)}" != REPOSITORY:
                return 404, _error("Repository not found"), {}
            if self.permissions.get(user["account_id"]) != "admin":
                # "Only users with admin permission for the repository may access this resource."
                return 403, _error("Your credentials lack one or more required privilege "
                                   "scopes."), {}
            return self._permissions(query)
        prefix = f"/repositories/{REPOSITORY}"
        if not path.startswith(prefix + "/"):
            return 404, _error("Repository not found"), {}
        rest = path[len(prefix):]
        pull = rf"/pullrequests/{self.number}"
        routes: list[tuple[str, str, Callable[..., tuple[int, Any]]]] = [
            ("GET", pull, self._pull),
            ("GET", rf"{pull}/commits", lambda: self._page(self._commits(), query)),
            ("GET", rf"{pull}/comments", lambda: self._page(
                [self._comment(c) for c in self.comments], query)),
            ("POST", rf"{pull}/comments", lambda: self._create_comment(body, user)),
            ("GET", rf"{pull}/comments/(\d+)", lambda cid: self._get_comment(int(cid))),
            ("PUT", rf"{pull}/comments/(\d+)", lambda cid: self._edit_comment(
                int(cid), body, user)),
            ("DELETE", rf"{pull}/comments/(\d+)", lambda cid: self._delete_comment(
                int(cid), user)),
            ("POST", rf"{pull}/comments/(\d+)/resolve", lambda cid: self._resolve(
                int(cid), user)),
            ("DELETE", rf"{pull}/comments/(\d+)/resolve", lambda cid: self._reopen(int(cid))),
            ("GET", rf"{pull}/tasks", lambda: self._page(
                [self._task(t) for t in self.tasks], query)),
            ("POST", rf"{pull}/tasks", lambda: self._create_task(body, user)),
            ("PUT", rf"{pull}/tasks/(\d+)", lambda tid: self._edit_task(int(tid), body, user)),
            ("GET", r"/diff/([^/]+)", lambda spec: self._diff(spec)),
            ("GET", r"/diffstat/([^/]+)", lambda spec: self._page(self._diffstat(spec), query)),
            ("GET", r"/commit/([0-9a-f]+)/statuses", lambda sha: self._page(
                [s for (c, _), s in self.statuses.items() if c == sha], query)),
            ("POST", r"/commit/([0-9a-f]+)/statuses/build", lambda sha: self._status(
                sha, None, body, user)),
            ("GET", r"/commit/([0-9a-f]+)/statuses/build/([^/]+)", self._get_status),
            ("PUT", r"/commit/([0-9a-f]+)/statuses/build/([^/]+)", lambda sha, key: self._status(
                sha, key, body, user)),
            ("GET", r"/commit/([0-9a-f]+)/reports", lambda sha: self._page(
                [r for (c, _), r in self.reports.items() if c == sha], query)),
            ("GET", r"/commit/([0-9a-f]+)/reports/([^/]+)", self._get_report),
            ("PUT", r"/commit/([0-9a-f]+)/reports/([^/]+)", lambda sha, rid: self._put_report(
                sha, rid, body)),
            ("DELETE", r"/commit/([0-9a-f]+)/reports/([^/]+)", self._delete_report),
            ("GET", r"/commit/([0-9a-f]+)/reports/([^/]+)/annotations",
             lambda sha, rid: self._list_annotations(sha, rid, query)),
            ("POST", r"/commit/([0-9a-f]+)/reports/([^/]+)/annotations",
             lambda sha, rid: self._annotate(sha, rid, body)),
            ("GET", r"/issues", lambda: self._issues_page(query)),
            ("POST", r"/issues", lambda: self._create_issue(body, user)),
            ("GET", r"/issues/(\d+)", lambda n: self._get_issue(int(n))),
            ("PUT", r"/issues/(\d+)", lambda n: self._edit_issue(int(n), body)),
            ("GET", r"/issues/(\d+)/comments", lambda n: self._issue_comments(int(n), query)),
            ("POST", r"/issues/(\d+)/comments", lambda n: self._comment_issue(int(n), body,
                                                                              user)),
            ("GET", r"/commit/([0-9a-f]+)/pullrequests", lambda sha: self._pulls_of(sha,
                                                                                   query)),
            ("POST", r"/pipelines", lambda: self._run_pipeline(body, user)),
            ("GET", r"/pipelines/([^/]+)", self._get_pipeline),
            ("GET", r"/src/([0-9a-f]+)/(.+)", self._src),
        ]
        redirects = {rf"{pull}/diff": "diff", rf"{pull}/diffstat": "diffstat"}
        for pattern, target in redirects.items():
            if method == "GET" and re.fullmatch(pattern, rest):
                where = f"{API}{prefix}/{target}/{self.head_sha}..{self.base_sha()}"
                return 302, None, {"Location": where}
        for verb, pattern, action in routes:
            match = re.fullmatch(pattern, rest)
            if verb == method and match:
                status, payload = action(*match.groups())
                return status, payload, {}
        self.errors.append(f"{method} {path}: described by Bitbucket but not faked")
        return 404, _error("not faked"), {}

    # -- pull request ----------------------------------------------------------------------

    def _repository(self) -> dict[str, Any]:
        return {"type": "repository", "full_name": REPOSITORY, "name": SLUG,
                "uuid": "{00000000-0000-4000-8000-0000000000aa}", "is_private": True,
                "has_issues": self.has_issues}

    def _endpoint(self, branch: str, sha: str) -> dict[str, Any]:
        # The description's `Pull Request Commit` holds the hash alone (no `type`).
        return {"branch": {"name": branch}, "commit": {"hash": sha},
                "repository": self._repository()}

    def _pull(self) -> tuple[int, Any]:
        return 200, {"type": "pullrequest", "id": self.number, "title": "A change",
                     "state": "OPEN", "author": _account(HUMAN),
                     "source": self._endpoint(self.head, self.head_sha),
                     "destination": self._endpoint(self.base, self.base_sha()),
                     "comment_count": sum(1 for c in self.comments if not c["deleted"]),
                     "task_count": sum(1 for t in self.tasks if t["state"] == "UNRESOLVED"),
                     "created_on": NOW, "updated_on": NOW}

    def _commits(self) -> list[dict[str, Any]]:
        log = self._git("log", "--format=%H%x00%an <%ae>%x00%aI%x00%s",
                        f"{self.base_sha()}..{self.head_sha}")
        out = []
        for line in log.splitlines():
            sha, author, date, subject = line.split("\0")
            out.append({"type": "commit", "hash": sha, "message": subject, "date": date,
                        "author": {"type": "author", "raw": author}})
        return out

    def _range(self, spec: str) -> tuple[str, str] | None:
        """`a..b`: `a` against its merge base with `b`; `a`: against its first parent."""
        try:
            if ".." in spec:
                head, base = spec.split("..", 1)
                return self._git("merge-base", base, head).strip(), self._git(
                    "rev-parse", head).strip()
            return self._git("rev-parse", f"{spec}^").strip(), self._git(
                "rev-parse", spec).strip()
        except subprocess.CalledProcessError:
            return None

    def _diff(self, spec: str) -> tuple[int, Any]:
        found = self._range(spec)
        if found is None:
            return 404, _error(f"Commit not found: {spec}")
        return 200, self._git("diff", "--no-color", *found)

    def _diffstat(self, spec: str) -> list[dict[str, Any]]:
        found = self._range(spec)
        if found is None:
            return []
        out = []
        numstat = self._git("diff", "--numstat", "-z", "--no-renames", *found).split("\0")
        status = dict(line.split("\t")[::-1] for line in self._git(
            "diff", "--name-status", "--no-renames", *found).splitlines())
        for entry in filter(None, numstat):
            added, removed, name = entry.split("\t")
            kind = {"A": "added", "D": "removed"}.get(status.get(name, "M"), "modified")
            item: dict[str, Any] = {"type": "diffstat", "status": kind,
                                    "lines_added": int(added) if added != "-" else 0,
                                    "lines_removed": int(removed) if removed != "-" else 0}
            if kind != "added":
                item["old"] = {"type": "commit_file", "path": name}
            if kind != "removed":
                item["new"] = {"type": "commit_file", "path": name}
            out.append(item)
        return out

    # -- comments and tasks ----------------------------------------------------------------

    def _find(self, cid: int) -> dict[str, Any] | None:
        return next((c for c in self.comments if c["id"] == cid), None)

    def _comment(self, c: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": "pullrequest_comment", "id": c["id"], "deleted": c["deleted"],
            "content": {"raw": c["raw"], "markup": "markdown", "html": ""},
            "user": _account(c["user"]), "created_on": c["created_on"],
            "updated_on": c["updated_on"], "pending": False,
            "links": {"self": {"href": f"{API}/repositories/{REPOSITORY}/pullrequests/"
                               f"{self.number}/comments/{c['id']}"}}}
        if "inline" in c:
            out["inline"] = c["inline"]
        if c.get("parent"):
            out["parent"] = {"type": "pullrequest_comment", "id": c["parent"]}
        if "resolution" in c:
            out["resolution"] = {"type": "comment_resolution", "created_on": NOW,
                                 "user": _account(c["resolution"])}
        return out

    def _create_comment(self, body: dict[str, Any], user: dict[str, Any]) -> tuple[int, Any]:
        raw = str((body.get("content") or {}).get("raw") or "")
        if not raw.strip():
            return 400, _error("content.raw: This field is required.")
        comment: dict[str, Any] = {"id": next(self._ids), "raw": raw, "user": user,
                                   "deleted": False, "created_on": NOW, "updated_on": NOW}
        parent = (body.get("parent") or {}).get("id")
        if parent is not None:
            target = self._find(int(parent))
            if target is None:
                return 404, _error("Parent comment not found")
            comment["parent"] = target["id"]
            if "inline" in target:
                comment["inline"] = dict(target["inline"])
        elif "inline" in body:
            inline = body["inline"]
            if not inline.get("path") or (inline.get("to") is None
                                          and inline.get("from") is None):
                return 400, _error("inline: a path and a line (to or from) are required")
            comment["inline"] = {k: inline[k] for k in ("path", "to", "from") if k in inline}
            shown = self.diff_lines().get(str(inline["path"]), set())
            comment["visible"] = inline.get("to") in shown if inline.get("to") else True
        self.comments.append(comment)
        return 201, self._comment(comment)

    def _get_comment(self, cid: int) -> tuple[int, Any]:
        comment = self._find(cid)
        if comment is None:
            return 404, _error("Comment not found")
        return 200, self._comment(comment)

    def _edit_comment(self, cid: int, body: dict[str, Any], user: dict[str, Any]
                      ) -> tuple[int, Any]:
        comment = self._find(cid)
        if comment is None or comment["deleted"]:
            return 404, _error("Comment not found")
        if comment["user"] is not user:
            return 403, _error("You can only edit your own comments")
        raw = (body.get("content") or {}).get("raw")
        if raw is not None:
            comment["raw"] = str(raw)
            comment["updated_on"] = NOW
        return 200, self._comment(comment)

    def _delete_comment(self, cid: int, user: dict[str, Any]) -> tuple[int, Any]:
        comment = self._find(cid)
        if comment is None or comment["deleted"]:
            return 404, _error("Comment not found")
        if comment["user"] is not user and self.permissions.get(user["account_id"]) != "admin":
            return 403, _error("You can only delete your own comments")
        comment["deleted"] = True
        return 204, None

    def _resolve(self, cid: int, user: dict[str, Any]) -> tuple[int, Any]:
        comment = self._find(cid)
        if comment is None or comment["deleted"]:
            return 404, _error("Comment not found")
        if comment.get("parent"):
            return 400, _error("Only top-level comments can be resolved")
        if "resolution" in comment:
            return 409, _error("Comment is already resolved")
        comment["resolution"] = user
        return 200, {"type": "comment_resolution", "created_on": NOW, "user": _account(user)}

    def _reopen(self, cid: int) -> tuple[int, Any]:
        comment = self._find(cid)
        if comment is None or "resolution" not in comment:
            return 404, _error("Comment is not resolved")
        del comment["resolution"]
        return 204, None

    def _task(self, t: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"id": t["id"], "state": t["state"], "creator": _account(t["user"]),
                               "content": {"raw": t["raw"], "markup": "markdown", "html": ""},
                               "created_on": NOW, "updated_on": NOW, "pending": False}
        if t.get("comment"):
            out["comment"] = {"type": "pullrequest_comment", "id": t["comment"]}
        return out

    def _create_task(self, body: dict[str, Any], user: dict[str, Any]) -> tuple[int, Any]:
        cid = (body.get("comment") or {}).get("id")
        if cid is not None and self._find(int(cid)) is None:
            return 404, _error("Comment not found")
        task = {"id": next(self._ids), "raw": str(body["content"].get("raw") or ""),
                "state": "UNRESOLVED", "user": user, "comment": cid}
        self.tasks.append(task)
        return 201, self._task(task)

    def _edit_task(self, tid: int, body: dict[str, Any], user: dict[str, Any]
                   ) -> tuple[int, Any]:
        task = next((t for t in self.tasks if t["id"] == tid), None)
        if task is None:
            return 404, _error("Task not found")
        if "state" in body:
            task["state"] = body["state"]
        if "content" in body:
            task["raw"] = str(body["content"].get("raw") or "")
        return 200, self._task(task)

    # -- statuses and Code Insights --------------------------------------------------------

    def _status(self, sha: str, named: str | None, body: dict[str, Any], user: dict[str, Any]
                ) -> tuple[int, Any]:
        key = named or str(body.get("key") or "")
        if not key or (body.get("state") is None and (sha, key) not in self.statuses):
            return 400, _error("key and state are required")
        if key != (body.get("key") or key):
            return 400, _error("the key in the body is not the key in the path")
        old: dict[str, Any] = self.statuses.get((sha, key)) or {}
        status: dict[str, Any] = {
            **old, "type": "build", "key": key, "created_on": old.get("created_on", NOW),
            "updated_on": NOW, "refname": self.head,
            **{k: body[k] for k in ("state", "name", "url", "description") if k in body}}
        self.statuses[(sha, key)] = status
        return (201 if named is None else 200), status

    def _get_status(self, sha: str, key: str) -> tuple[int, Any]:
        status = self.statuses.get((sha, key))
        return (200, status) if status else (404, _error("Commit status not found"))

    def _report_key(self, sha: str, rid: str) -> tuple[str, str] | None:
        for (c, _), report in self.reports.items():
            if c == sha and rid in (report["uuid"], report["external_id"]):
                return c, report["external_id"]
        return None

    def _get_report(self, sha: str, rid: str) -> tuple[int, Any]:
        key = self._report_key(sha, rid)
        return (200, self.reports[key]) if key else (404, _error("Report not found"))

    def _put_report(self, sha: str, rid: str, body: dict[str, Any]) -> tuple[int, Any]:
        missing = [k for k in ("title", "details", "report_type") if not body.get(k)]
        if missing:
            return 400, _error(f"missing {', '.join(missing)}")
        key = self._report_key(sha, rid) or (sha, rid)
        old = self.reports.pop(key, None)
        self.annotations.pop(key, None)  # replacing a report drops its annotations
        report = {**{k: v for k, v in body.items() if k not in ("uuid", "created_on")},
                  "type": "report", "external_id": key[1],
                  "uuid": old["uuid"] if old else "{" + str(uuid.uuid4()) + "}",
                  "created_on": old["created_on"] if old else NOW, "updated_on": NOW}
        self.reports[key] = report
        return 200, report

    def _delete_report(self, sha: str, rid: str) -> tuple[int, Any]:
        key = self._report_key(sha, rid)
        if key is not None:
            del self.reports[key]
            self.annotations.pop(key, None)
        return 204, None

    def _list_annotations(self, sha: str, rid: str, query: dict[str, list[str]]
                          ) -> tuple[int, Any]:
        key = self._report_key(sha, rid)
        if key is None:
            return 404, _error("Report not found")
        return self._page(self.annotations.get(key, []), query)

    def _annotate(self, sha: str, rid: str, body: list[dict[str, Any]]) -> tuple[int, Any]:
        key = self._report_key(sha, rid)
        if key is None:
            return 404, _error("Report not found")
        have = self.annotations.setdefault(key, [])
        made = []
        for item in body:
            if not item.get("external_id") or not item.get("annotation_type") \
                    or not item.get("summary"):
                return 400, _error("external_id, annotation_type and summary are required")
            old = next((a for a in have if a["external_id"] == item["external_id"]), None)
            annotation = {**{k: v for k, v in item.items() if k != "uuid"},
                          "type": "report_annotation",
                          "uuid": old["uuid"] if old else "{" + str(uuid.uuid4()) + "}",
                          "created_on": NOW, "updated_on": NOW}
            if old:
                have[have.index(old)] = annotation
            else:
                have.append(annotation)
            made.append(annotation)
        if len(have) > MAX_ANNOTATIONS:
            del have[MAX_ANNOTATIONS:]
            return 400, _error(f"A report holds {MAX_ANNOTATIONS} annotations at most")
        return 200, made

    # -- issues, pipelines, permissions, files ---------------------------------------------

    def _issue(self, n: int) -> dict[str, Any]:
        issue = self.issues[n]
        return {"type": "issue", "id": n, "title": issue["title"], "state": issue["state"],
                "kind": issue["kind"], "priority": issue["priority"],
                "content": {"raw": issue["raw"], "markup": "markdown", "html": ""},
                "reporter": _account(issue["reporter"]), "created_on": NOW,
                "updated_on": NOW, "votes": 0}

    def _issues_page(self, query: dict[str, list[str]]) -> tuple[int, Any]:
        if not self.has_issues:
            return 404, _error("Repository has no issue tracker.")
        return self._page([self._issue(n) for n in sorted(self.issues)], query)

    def _create_issue(self, body: dict[str, Any], user: dict[str, Any]) -> tuple[int, Any]:
        if not self.has_issues:
            return 404, _error("Repository has no issue tracker.")
        if not body.get("title"):
            return 400, _error("title: This field is required.")
        n = max(self.issues, default=0) + 1
        self.issues[n] = {"title": body["title"], "state": body.get("state", "new"),
                          "kind": body.get("kind", "bug"),
                          "priority": body.get("priority", "major"),
                          "raw": str((body.get("content") or {}).get("raw") or ""),
                          "reporter": user}
        return 201, self._issue(n)

    def _get_issue(self, n: int) -> tuple[int, Any]:
        if not self.has_issues or n not in self.issues:
            return 404, _error("Issue not found")
        return 200, self._issue(n)

    def _edit_issue(self, n: int, body: dict[str, Any]) -> tuple[int, Any]:
        if not self.has_issues or n not in self.issues:
            return 404, _error("Issue not found")
        issue = self.issues[n]
        for key in ("title", "state", "kind", "priority"):
            if key in body:
                issue[key] = body[key]
        if "content" in body:
            issue["raw"] = str(body["content"].get("raw") or "")
        return 200, self._issue(n)

    def _issue_comment(self, c: dict[str, Any]) -> dict[str, Any]:
        return {"type": "issue_comment", "id": c["id"], "user": _account(c["user"]),
                "content": {"raw": c["raw"], "markup": "markdown", "html": ""},
                "created_on": NOW, "updated_on": NOW}

    def _issue_comments(self, n: int, query: dict[str, list[str]]) -> tuple[int, Any]:
        if not self.has_issues or n not in self.issues:
            return 404, _error("Issue not found")
        return self._page([self._issue_comment(c) for c in self.issue_comments
                           if c["issue"] == n], query)

    def _comment_issue(self, n: int, body: dict[str, Any], user: dict[str, Any]
                       ) -> tuple[int, Any]:
        if not self.has_issues or n not in self.issues:
            return 404, _error("Issue not found")
        raw = str((body.get("content") or {}).get("raw") or "")
        if not raw.strip():
            return 400, _error("content.raw: This field is required.")
        comment = {"id": next(self._ids), "issue": n, "raw": raw, "user": user}
        self.issue_comments.append(comment)
        return 201, self._issue_comment(comment)

    def _pulls_of(self, sha: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        found = self.merged_in.get(sha)
        if found is None:
            return 404, _error("Pull request commit links have not yet been indexed")
        return self._page([{"type": "pullrequest", "id": number, "title": "A change",
                            "state": state, "author": _account(author),
                            "created_on": NOW, "updated_on": NOW}
                           for number, author, state in found], query)

    def _run_pipeline(self, body: dict[str, Any], user: dict[str, Any]) -> tuple[int, Any]:
        target = body.get("target") or {}
        selector = target.get("selector") or {}
        if target.get("type") != "pipeline_ref_target" or not target.get("ref_name"):
            return 400, _error("target: a pipeline_ref_target with a ref_name is required")
        if selector.get("type") == "custom" and selector.get("pattern") not in self.custom_pipelines:
            return 400, _error(f"custom pipeline {selector.get('pattern')!r} is not defined "
                               "in bitbucket-pipelines.yml")
        pipeline = {"type": "pipeline", "uuid": "{" + str(uuid.uuid4()) + "}",
                    "build_number": len(self.pipelines) + 1, "created_on": NOW,
                    "creator": _account(user), "repository": self._repository(),
                    "state": {"type": "pipeline_state_pending", "name": "PENDING"},
                    "target": target,
                    "variables": [{k: v for k, v in var.items() if k != "value" or not
                                   var.get("secured")} for var in body.get("variables") or []]}
        self.pipelines.append({**pipeline, "sent": body})
        return 201, pipeline

    def _get_pipeline(self, pid: str) -> tuple[int, Any]:
        found = next((p for p in self.pipelines if p["uuid"] == pid), None)
        if found is None:
            return 404, _error("Pipeline not found")
        return 200, {k: v for k, v in found.items() if k != "sent"}

    def _permissions(self, query: dict[str, list[str]]) -> tuple[int, Any, dict[str, str]]:
        q = (query.get("q") or [""])[0]
        wanted = re.fullmatch(r'user\.(account_id|uuid)\s*=\s*"([^"]+)"', q.strip()) if q else None
        if q and wanted is None:
            return 400, _error(f"Invalid query: {q}"), {}
        users = [u for u in (BOT, HUMAN) if wanted is None or u[wanted.group(1)] == wanted.group(2)]
        values = [{"type": "repository_permission", "permission": self.permissions[u["account_id"]],
                   "user": _account(u), "repository": self._repository()}
                  for u in users if u["account_id"] in self.permissions]
        status, page = self._page(values, query)
        return status, page, {}

    def _src(self, sha: str, path: str) -> tuple[int, Any]:
        shown = subprocess.run(["git", "show", f"{sha}:{path}"], cwd=self.repo,
                               capture_output=True, check=False)
        if shown.returncode != 0:
            return 404, _error(f"No such file or directory: {path}")
        return 200, shown.stdout

    def _page(self, items: list[dict[str, Any]], query: dict[str, list[str]]
              ) -> tuple[int, Any]:
        page = int((query.get("page") or ["1"])[0])
        pagelen = min(100, int((query.get("pagelen") or ["10"])[0]))
        out: dict[str, Any] = {"size": len(items), "page": page, "pagelen": pagelen,
                               "values": items[(page - 1) * pagelen: page * pagelen]}
        if page * pagelen < len(items):
            out["next"] = f"{SERVER}{self._path}?" + urlencode(
                {**{k: v[-1] for k, v in query.items()}, "page": page + 1, "pagelen": pagelen})
        return 200, out

    def _git(self, *args: str) -> str:
        return subprocess.run(["git", *args], cwd=self.repo, check=True, capture_output=True,
                              text=True).stdout


def _account(user: dict[str, Any]) -> dict[str, Any]:
    return {"type": "user", **user, "links": {"avatar": {
        "href": f"{SERVER}/avatar/{quote(user['nickname'])}"}}}


def _error(message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"message": message}}
