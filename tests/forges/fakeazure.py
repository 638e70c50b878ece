"""A fake Azure DevOps Services behind `httpx.MockTransport`: REST under
`/{organization}/{project}/_apis`, for one organization, project and repository (`octo`,
`demo`, `demo`) and its pull request #1, one pipeline (#7) and the project's work items.

Every request is checked against Azure DevOps's own descriptions, cut into
`tests/forges/azure/` (git, work item tracking and pipelines, 7.2; see its README), by the
shared validator (`tests/forges/validate.py`, `Swagger`): the operation exists (an operation
kept in `x-ms-paths` is told apart by its query parameter), its path and query parameters are
declared with the right types, `api-version` is there, its body is of a media type the
operation consumes (a work item's is `application/json-patch+json`) and validates with
undeclared keys refused. Every JSON answer of the fake is checked against the operation's
response schema too; a list is answered as Azure DevOps answers every list, `{"count",
"value"}` (the descriptions show only the array), and its `value` is what is checked. What is
wrong goes to `errors` (a request is answered 400), which the tests assert empty.

Behaviour follows Azure DevOps where the bot depends on it: a thread needs a comment; a
thread's file path starts with `/`; a thread's `status` and `properties` change with PATCH on
the thread, a comment's content only by its author; each push is an iteration, whose changes
come from real git in a real repository; pull request statuses are kept per iteration when
one is named; a label is added once by name and removed by name or id; a pipeline run takes
variables only where the pipeline allows them to be set at queue time
(`settable_variables`); an item is a file at a commit, as raw text when text is asked for; a
WIQL query finds the project's work items by their tags (the one form the bot sends, in the
context of the default team `demo Team`).
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
from urllib.parse import parse_qs, unquote, urlsplit

import httpx

from tests.forges.loopback import Fault
from tests.forges.validate import Swagger, swagger

ORGANIZATION, PROJECT, REPOSITORY = "octo", "demo", "demo"
TEAM = f"{PROJECT} Team"  # the project's default team: the context of a WIQL query
REPOSITORY_ID = "0b6b3c6e-3c47-4b4f-9d27-6a0f1c2f0a11"
PIPELINE_ID = 7
SERVER = "https://dev.azure.test"
API = f"{SERVER}/{ORGANIZATION}/{PROJECT}/_apis"
HERE = Path(__file__).resolve().parent / "azure"
BOT = {"id": "5a1f7d2c-0000-4000-8000-000000000050", "displayName": "demo Build Service (octo)",
       "uniqueName": "Build\\5a1f7d2c-0000-4000-8000-000000000050"}
HUMAN = {"id": "9e3c1b2a-0000-4000-8000-000000000007", "displayName": "Alice",
         "uniqueName": "alice@octo.test"}
TOKENS = {"bot-token": BOT, "alice-token": HUMAN}
NOW = "2026-01-01T00:00:00Z"
FAULT_KINDS = ("500-before", "500-after", "429", "403", "404", "timeout-before", "timeout-after")
API_VERSION = re.compile(r"\d+\.\d+(-preview(\.\d+)?)?")


def descriptions() -> list[Swagger]:
    return [swagger(HERE / f"{name}-7.2-subset.json", f"Azure DevOps {name}")
            for name in ("git", "wit", "pipelines")]


def described(method: str, path: str, query: dict[str, list[str]]) -> Swagger | None:
    """The description that has the operation `method path`, if one has."""
    return next((d for d in descriptions() if d.operation(method, path, query)), None)


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    query: dict[str, list[str]]
    body: Any

    @property
    def write(self) -> bool:
        # A WIQL query is a POST that changes nothing.
        return self.method != "GET" and not self.path.endswith("/_apis/wit/wiql")


@dataclass
class FakeAzure:
    repo: Path  # a git repository with `base` and `head` branches
    base: str = "main"
    head: str = "feature"
    number: int = 1
    settable_variables: set[str] = field(default_factory=lambda: {"REVIEWBOT_COMMAND"})
    reviewers: list[dict[str, Any]] = field(default_factory=lambda: [
        {**HUMAN, "vote": 0, "isRequired": False}])
    errors: list[str] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    threads: list[dict[str, Any]] = field(default_factory=list)
    statuses: list[dict[str, Any]] = field(default_factory=list)
    labels: list[dict[str, Any]] = field(default_factory=list)
    work_items: dict[int, dict[str, Any]] = field(default_factory=dict)
    runs: list[dict[str, Any]] = field(default_factory=list)
    iterations: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._ids = itertools.count(100)
        self.push()

    # -- the test's side -------------------------------------------------------------------

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    @property
    def head_sha(self) -> str:
        return str(self.iterations[-1]["source"])

    def push(self, reason: str = "push") -> None:
        """The head branch as pushed now: a new iteration of the pull request."""
        head = self._git("rev-parse", self.head).strip()
        target = self._git("rev-parse", self.base).strip()
        self.iterations.append({"id": len(self.iterations) + 1, "source": head,
                                "target": target,
                                "common": self._git("merge-base", target, head).strip(),
                                "reason": reason if self.iterations else "create"})

    def reply(self, thread_id: int, text: str, user: dict[str, Any] = HUMAN) -> dict[str, Any]:
        """A reply in thread `thread_id`, as Azure DevOps's page makes one."""
        thread = next(t for t in self.threads if t["id"] == thread_id)
        comment = self._new_comment(thread, text, user, thread["comments"][0]["id"])
        return comment

    def writes(self) -> list[Call]:
        return [c for c in self.calls if c.write]

    # -- the HTTP side -----------------------------------------------------------------------

    def handle(self, request: httpx.Request) -> httpx.Response:
        url = urlsplit(str(request.url))
        path = unquote(url.path)
        query = parse_qs(url.query, keep_blank_values=True)
        body = request.content
        method = request.method
        try:
            value = json.loads(body) if body else None
        except ValueError:
            value = body
        self.calls.append(Call(method, path, query, value))
        spec = described(method, path, query)
        if spec is None:
            problems = [f"{method} {path}: no such operation in Azure DevOps's descriptions"]
        else:
            problems = spec.request_errors(method, path, query, body,
                                           request.headers.get("content-type"))
            problems += [f"{method} {path}: api-version={v!r} is not a version"
                         for v in query.get("api-version", []) if not API_VERSION.fullmatch(v)]
        if problems:
            self.errors += problems
            return self._json(400, _error("; ".join(problems), "InvalidArgumentValueException"))
        token = (request.headers.get("authorization") or "").removeprefix("Bearer ")
        user = TOKENS.get(token)
        if user is None:
            # Azure DevOps answers an unknown token with its sign-in page, not JSON
            return httpx.Response(203, content=b"<html>Sign In</html>",
                                  headers={"content-type": "text/html"})
        fault = self._fault(method, path)
        if fault in ("500-before", "429", "403", "404", "timeout-before"):
            return self._faulted(fault, request)
        accept = request.headers.get("accept", "")
        status, payload = self._route(method, path, query, value, user, accept)
        if fault in ("500-after", "timeout-after"):
            return self._faulted(fault, request)
        if isinstance(payload, (bytes, str)):
            data = payload.encode() if isinstance(payload, str) else payload
            return httpx.Response(status, content=data, headers={"content-type": "text/plain"})
        if status < 400 and spec is not None:
            checked = payload["value"] if isinstance(payload, dict) and set(payload) == {
                "count", "value"} else payload
            self.errors += spec.response_errors(method, path, query, status, checked)
        return self._json(status, payload)

    def _json(self, status: int, payload: Any, headers: dict[str, str] | None = None
              ) -> httpx.Response:
        content = b"" if payload is None else json.dumps(payload).encode()
        return httpx.Response(status, content=content, headers={
            "content-type": "application/json; charset=utf-8", **(headers or {})})

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
            return self._json(429, _error("Request was blocked due to exceeding usage of "
                                          "resource", "RateLimitException"), {"Retry-After": "3"})
        if kind == "404":
            return self._json(404, _error("not found", "NotFoundException"))
        if kind == "403":
            return self._json(403, _error("TF401027: You need the Git 'Contribute' permission",
                                          "UnauthorizedRequestException"))
        return self._json(500, _error("internal error", "Exception"))

    def _route(self, method: str, path: str, query: dict[str, list[str]], body: Any,
               user: dict[str, Any], accept: str) -> tuple[int, Any]:
        prefix = f"/{ORGANIZATION}/{PROJECT}/_apis"
        team = re.fullmatch(rf"/{ORGANIZATION}/{PROJECT}/([^/]+)/_apis/wit/wiql", path)
        if method == "POST" and team:
            return self._wiql(team.group(1), body)
        if not path.startswith(prefix + "/"):
            return 404, _error("project not found", "ProjectDoesNotExistException")
        rest = path[len(prefix):]
        repo = rf"/git/repositories/(?:{REPOSITORY}|{REPOSITORY_ID})"
        pull = rf"{repo}/pull[rR]equests/{self.number}"
        routes: list[tuple[str, str, Callable[..., tuple[int, Any]]]] = [
            ("GET", pull, self._pull),
            ("GET", rf"{pull}/iterations", lambda: _list(
                [self._iteration(i) for i in self.iterations])),
            ("GET", rf"{pull}/iterations/(\d+)/changes", lambda n: self._changes(int(n), query)),
            ("GET", rf"{pull}/commits", lambda: _list(self._commits())),
            ("GET", rf"{pull}/threads", lambda: _list(
                [self._thread(t) for t in self.threads if not t["isDeleted"]])),
            ("POST", rf"{pull}/threads", lambda: self._create_thread(body, user)),
            ("GET", rf"{pull}/threads/(\d+)", lambda tid: self._get_thread(int(tid))),
            ("PATCH", rf"{pull}/threads/(\d+)", lambda tid: self._edit_thread(int(tid), body)),
            ("POST", rf"{pull}/threads/(\d+)/comments", lambda tid: self._add_comment(
                int(tid), body, user)),
            ("PATCH", rf"{pull}/threads/(\d+)/comments/(\d+)", lambda tid, cid: self._edit_comment(
                int(tid), int(cid), body, user)),
            ("GET", rf"{pull}/statuses", lambda: _list(self.statuses)),
            ("POST", rf"{pull}/statuses", lambda: self._status(body, user)),
            ("GET", rf"{pull}/labels", lambda: _list(self.labels)),
            ("POST", rf"{pull}/labels", lambda: self._label(body)),
            ("DELETE", rf"{pull}/labels/([^/]+)", self._unlabel),
            ("GET", rf"{pull}/reviewers", lambda: _list(self.reviewers)),
            ("GET", rf"{repo}/items", lambda: self._item(query, accept)),
            ("POST", r"/wit/workitems/\$([^/]+)", lambda kind: self._create_work_item(
                kind, body, user)),
            ("GET", r"/wit/workitems/(\d+)", lambda n: self._get_work_item(int(n))),
            ("PATCH", r"/wit/workitems/(\d+)", lambda n: self._edit_work_item(int(n), body)),
            ("POST", rf"/pipelines/{PIPELINE_ID}/runs", lambda: self._run(body, user)),
            ("GET", rf"/pipelines/{PIPELINE_ID}/runs/(\d+)", lambda n: self._get_run(int(n))),
        ]
        for verb, pattern, action in routes:
            match = re.fullmatch(pattern, rest)
            if verb == method and match:
                return action(*match.groups())
        if re.fullmatch(rf"{repo}/.*", rest) or re.fullmatch(r"/pipelines/\d+/.*", rest):
            return 404, _error(f"TF401180: The requested resource {rest} was not found",
                               "NotFoundException")
        self.errors.append(f"{method} {path}: described by Azure DevOps but not faked")
        return 404, _error("not faked", "NotFoundException")

    # -- pull request ----------------------------------------------------------------------

    def _repository(self) -> dict[str, Any]:
        return {"id": REPOSITORY_ID, "name": REPOSITORY,
                "project": {"id": "1d2c3b4a-0000-4000-8000-0000000000aa", "name": PROJECT},
                "remoteUrl": f"{SERVER}/{ORGANIZATION}/{PROJECT}/_git/{REPOSITORY}",
                "defaultBranch": f"refs/heads/{self.base}"}

    def _pull(self) -> tuple[int, Any]:
        last = self.iterations[-1]
        return 200, {
            "pullRequestId": self.number, "codeReviewId": self.number, "title": "A change",
            "status": "active", "createdBy": _identity(HUMAN), "creationDate": NOW,
            "sourceRefName": f"refs/heads/{self.head}",
            "targetRefName": f"refs/heads/{self.base}", "isDraft": False,
            "mergeStatus": "succeeded", "supportsIterations": True,
            "lastMergeSourceCommit": {"commitId": last["source"]},
            "lastMergeTargetCommit": {"commitId": last["target"]},
            "repository": self._repository(), "labels": self.labels,
            "reviewers": self.reviewers,
            "url": f"{API}/git/repositories/{REPOSITORY_ID}/pullRequests/{self.number}"}

    def _iteration(self, it: dict[str, Any]) -> dict[str, Any]:
        return {"id": it["id"], "reason": it["reason"], "author": _identity(HUMAN),
                "createdDate": NOW, "updatedDate": NOW,
                "sourceRefCommit": {"commitId": it["source"]},
                "targetRefCommit": {"commitId": it["target"]},
                "commonRefCommit": {"commitId": it["common"]}}

    def _changes(self, number: int, query: dict[str, list[str]]) -> tuple[int, Any]:
        if not 1 <= number <= len(self.iterations):
            return 404, _error(f"TF401174: The item iteration {number} was not found",
                               "GitPullRequestIterationNotFoundException")
        it = self.iterations[number - 1]
        compare = int((query.get("$compareTo") or ["0"])[0])
        since = self.iterations[compare - 1]["source"] if 1 <= compare < number else it["common"]
        entries: list[dict[str, Any]] = []
        for line in self._git("diff", "--name-status", "--no-renames", since,
                              it["source"]).splitlines():
            kind, name = line.split("\t", 1)
            entries.append({"changeTrackingId": len(entries) + 1, "changeId": len(entries) + 1,
                            "changeType": {"A": "add", "D": "delete"}.get(kind, "edit"),
                            "item": {"path": f"/{name}", "objectId": self._git(
                                "rev-parse", f"{since if kind == 'D' else it['source']}:{name}"
                            ).strip()}})
        top = int((query.get("$top") or ["100"])[0])
        skip = int((query.get("$skip") or ["0"])[0])
        page: dict[str, Any] = {"changeEntries": entries[skip: skip + top]}
        if skip + top < len(entries):
            page.update(nextSkip=skip + top, nextTop=top)
        return 200, page

    def _commits(self) -> list[dict[str, Any]]:
        last = self.iterations[-1]
        log = self._git("log", "--format=%H%x00%an%x00%ae%x00%aI%x00%s",
                        f"{last['common']}..{last['source']}")
        out = []
        for line in log.splitlines():
            sha, name, email, date, subject = line.split("\0")
            out.append({"commitId": sha, "comment": subject,
                        "author": {"name": name, "email": email, "date": date}})
        return out

    # -- threads ---------------------------------------------------------------------------

    def _find(self, tid: int) -> dict[str, Any] | None:
        return next((t for t in self.threads if t["id"] == tid and not t["isDeleted"]), None)

    def _thread(self, t: dict[str, Any]) -> dict[str, Any]:
        out = {k: v for k, v in t.items() if k != "comments"}
        out["comments"] = [_comment(c) for c in t["comments"]]
        return out

    def _new_comment(self, thread: dict[str, Any], text: str, user: dict[str, Any],
                     parent: int = 0, kind: str = "text") -> dict[str, Any]:
        comment = {"id": len(thread["comments"]) + 1, "parentCommentId": parent,
                   "content": text, "commentType": kind, "author": user,
                   "publishedDate": NOW, "lastUpdatedDate": NOW,
                   "lastContentUpdatedDate": NOW, "isDeleted": False}
        thread["comments"].append(comment)
        return comment

    def _create_thread(self, body: dict[str, Any], user: dict[str, Any]) -> tuple[int, Any]:
        comments = body.get("comments") or []
        if not comments:
            return 400, _error("The thread must contain at least one comment.",
                               "InvalidArgumentValueException")
        context = body.get("threadContext")
        if context is not None:
            if not str(context.get("filePath") or "").startswith("/"):
                return 400, _error("threadContext.filePath must start with '/'",
                                   "InvalidArgumentValueException")
            for side in ("rightFileStart", "rightFileEnd", "leftFileStart", "leftFileEnd"):
                where = context.get(side)
                if where is not None and (where.get("line", 0) < 1 or where.get("offset", 1) < 1):
                    return 400, _error(f"threadContext.{side}: line and offset start at 1",
                                       "InvalidArgumentValueException")
        thread: dict[str, Any] = {
            "id": next(self._ids), "status": body.get("status", "active"),
            "publishedDate": NOW, "lastUpdatedDate": NOW, "isDeleted": False, "comments": [],
            "properties": dict(body.get("properties") or {})}
        if context is not None:
            thread["threadContext"] = context
        if body.get("pullRequestThreadContext") is not None:
            thread["pullRequestThreadContext"] = body["pullRequestThreadContext"]
        for c in comments:
            self._new_comment(thread, str(c.get("content") or ""), user,
                              int(c.get("parentCommentId") or 0), c.get("commentType", "text"))
        self.threads.append(thread)
        return 200, self._thread(thread)

    def _get_thread(self, tid: int) -> tuple[int, Any]:
        thread = self._find(tid)
        if thread is None:
            return 404, _error(f"TF401181: The thread {tid} was not found",
                               "CodeReviewThreadNotFoundException")
        return 200, self._thread(thread)

    def _edit_thread(self, tid: int, body: dict[str, Any]) -> tuple[int, Any]:
        thread = self._find(tid)
        if thread is None:
            return 404, _error(f"TF401181: The thread {tid} was not found",
                               "CodeReviewThreadNotFoundException")
        if "status" in body:
            thread["status"] = body["status"]
        for key, value in (body.get("properties") or {}).items():
            if value is None:
                thread["properties"].pop(key, None)
            else:
                thread["properties"][key] = value
        thread["lastUpdatedDate"] = NOW
        return 200, self._thread(thread)

    def _add_comment(self, tid: int, body: dict[str, Any], user: dict[str, Any]
                     ) -> tuple[int, Any]:
        thread = self._find(tid)
        if thread is None:
            return 404, _error(f"TF401181: The thread {tid} was not found",
                               "CodeReviewThreadNotFoundException")
        parent = int(body.get("parentCommentId") or 0)
        if parent and not any(c["id"] == parent for c in thread["comments"]):
            return 400, _error(f"parent comment {parent} not found",
                               "InvalidArgumentValueException")
        return 200, _comment(self._new_comment(thread, str(body.get("content") or ""), user,
                                               parent, body.get("commentType", "text")))

    def _edit_comment(self, tid: int, cid: int, body: dict[str, Any], user: dict[str, Any]
                      ) -> tuple[int, Any]:
        thread = self._find(tid)
        comment = next((c for c in thread["comments"] if c["id"] == cid), None) if thread else None
        if comment is None:
            return 404, _error(f"TF401182: The comment {cid} was not found",
                               "CodeReviewCommentNotFoundException")
        if comment["author"] is not user:
            return 403, _error("TF401186: Only the author of a comment can edit it",
                               "UnauthorizedRequestException")
        if "content" in body:
            comment["content"] = str(body["content"])
            comment["lastContentUpdatedDate"] = NOW
        return 200, _comment(comment)

    # -- statuses, labels --------------------------------------------------------------------

    def _status(self, body: dict[str, Any], user: dict[str, Any]) -> tuple[int, Any]:
        context = body.get("context") or {}
        if not context.get("name") or body.get("state") in (None, "notSet"):
            return 400, _error("context.name and a state are required",
                               "InvalidArgumentValueException")
        iteration = body.get("iterationId")
        if iteration is not None and not 1 <= int(iteration) <= len(self.iterations):
            return 400, _error(f"iteration {iteration} does not exist",
                               "InvalidArgumentValueException")
        status = {"id": len(self.statuses) + 1, "state": body["state"],
                  "description": str(body.get("description") or ""), "context": context,
                  "creationDate": NOW, "updatedDate": NOW, "createdBy": _identity(user),
                  **({"targetUrl": body["targetUrl"]} if body.get("targetUrl") else {}),
                  **({"iterationId": iteration} if iteration is not None else {})}
        self.statuses.append(status)
        return 200, status

    def _label(self, body: dict[str, Any]) -> tuple[int, Any]:
        name = str(body.get("name") or "").strip()
        if not name:
            return 400, _error("a label needs a name", "InvalidArgumentValueException")
        found = next((t for t in self.labels if t["name"].lower() == name.lower()), None)
        if found is None:
            found = {"id": str(uuid.uuid4()), "name": name, "active": True,
                     "url": f"{API}/tags/{name}"}
            self.labels.append(found)
        return 200, found

    def _unlabel(self, named: str) -> tuple[int, Any]:
        found = next((t for t in self.labels if named in (t["id"], t["name"])), None)
        if found is None:
            return 404, _error(f"label {named} not found", "NotFoundException")
        self.labels.remove(found)
        return 200, None  # the description's answer; the bot takes 204 as well

    # -- items, work items, pipeline runs ----------------------------------------------------

    def _item(self, query: dict[str, list[str]], accept: str) -> tuple[int, Any]:
        path = query["path"][0].lstrip("/")
        version = (query.get("versionDescriptor.version") or [self.base])[0]
        kind = (query.get("versionDescriptor.versionType") or ["branch"])[0]
        if kind not in ("branch", "commit", "tag"):
            return 400, _error(f"versionType {kind} is not supported here",
                               "InvalidArgumentValueException")
        shown = subprocess.run(["git", "show", f"{version}:{path}"], cwd=self.repo,
                               capture_output=True, check=False)
        if shown.returncode != 0:
            return 404, _error(f"TF401174: The item '/{path}' could not be found at "
                               f"'{version}'", "GitItemNotFoundException")
        if "text/plain" in accept or "application/octet-stream" in accept:
            return 200, shown.stdout
        item: dict[str, Any] = {
            "path": f"/{path}", "gitObjectType": "blob", "isFolder": False,
            "objectId": self._git("rev-parse", f"{version}:{path}").strip(),
            "commitId": self._git("rev-parse", version).strip()}
        if (query.get("includeContent") or ["false"])[0] == "true":
            item["content"] = shown.stdout.decode("utf-8", "replace")
        return 200, item

    def _work_item(self, n: int) -> dict[str, Any]:
        item = self.work_items[n]
        return {"id": n, "rev": item["rev"], "fields": dict(item["fields"]),
                "url": f"{API}/wit/workItems/{n}"}

    def _patch(self, fields: dict[str, Any], ops: list[dict[str, Any]]) -> str | None:
        for op in ops:
            name = str(op.get("path") or "")
            if not name.startswith("/fields/"):
                return f"path {name!r}: only /fields/ are patched here"
            key = name.removeprefix("/fields/")
            if op["op"] in ("add", "replace"):
                fields[key] = op.get("value")
            elif op["op"] == "remove":
                fields.pop(key, None)
            elif op["op"] == "test" and fields.get(key) != op.get("value"):
                return f"test of {key} failed"
        return None

    def _create_work_item(self, kind: str, body: list[dict[str, Any]], user: dict[str, Any]
                          ) -> tuple[int, Any]:
        if kind not in ("Task", "Bug", "Issue"):
            return 404, _error(f"TF201036: work item type {kind} does not exist",
                               "WorkItemTypeNotFoundException")
        fields: dict[str, Any] = {"System.WorkItemType": kind, "System.State": "To Do",
                                  "System.CreatedBy": _identity(user)}
        problem = self._patch(fields, body)
        if problem is None and not fields.get("System.Title"):
            problem = "TF401320: Rule Error for field Title: required"
        if problem:
            return 400, _error(problem, "RuleValidationException")
        n = max(self.work_items, default=0) + 1
        self.work_items[n] = {"rev": 1, "fields": fields}
        return 200, self._work_item(n)

    def _wiql(self, team: str, body: dict[str, Any]) -> tuple[int, Any]:
        """A flat query of the project's work items by their tags, the one form the fake
        evaluates: `SELECT [System.Id] FROM WorkItems WHERE [System.TeamProject] = @project
        AND [System.Tags] CONTAINS 'tag' ... ORDER BY [System.Id]`; any other is an error."""
        if team != TEAM:
            return 404, _error(f"TF400299: the team {team} does not exist",
                               "TeamNotFoundException")
        query = " ".join(str(body.get("query") or "").split())
        form = re.fullmatch(r"SELECT \[System\.Id\] FROM WorkItems WHERE "
                            r"\[System\.TeamProject\] = @project((?: AND \[System\.Tags\] "
                            r"CONTAINS '(?:[^']|'')+')+) ORDER BY \[System\.Id\]", query)
        if form is None:
            self.errors.append(f"WIQL the fake does not evaluate: {query}")
            return 400, _error("unsupported query", "WorkItemTrackingQueryException")
        wanted = [t.replace("''", "'") for t in re.findall(r"CONTAINS '((?:[^']|'')+)'",
                                                            form.group(1))]
        found = [n for n, item in sorted(self.work_items.items())
                 if all(t.lower() in [x.strip().lower() for x in
                                      str(item["fields"].get("System.Tags") or "").split(";")]
                        for t in wanted)]
        return 200, {"queryType": "flat", "queryResultType": "workItem", "asOf": NOW,
                     "columns": [{"referenceName": "System.Id", "name": "ID",
                                  "url": f"{SERVER}/{ORGANIZATION}/_apis/wit/fields/System.Id"}],
                     "workItems": [{"id": n, "url": f"{API}/wit/workItems/{n}"}
                                   for n in found]}

    def _get_work_item(self, n: int) -> tuple[int, Any]:
        if n not in self.work_items:
            return 404, _error(f"TF401232: Work item {n} does not exist",
                               "WorkItemUnauthorizedAccessException")
        return 200, self._work_item(n)

    def _edit_work_item(self, n: int, body: list[dict[str, Any]]) -> tuple[int, Any]:
        if n not in self.work_items:
            return 404, _error(f"TF401232: Work item {n} does not exist",
                               "WorkItemUnauthorizedAccessException")
        fields = dict(self.work_items[n]["fields"])
        problem = self._patch(fields, body)
        if problem:
            return 400, _error(problem, "RuleValidationException")
        self.work_items[n] = {"rev": self.work_items[n]["rev"] + 1, "fields": fields}
        return 200, self._work_item(n)

    def _run(self, body: dict[str, Any], user: dict[str, Any]) -> tuple[int, Any]:
        variables = body.get("variables") or {}
        refused = sorted(set(variables) - self.settable_variables)
        if refused:
            return 400, _error(f"You can't set the following variables ({', '.join(refused)})."
                               " If you want to be able to set these variables, then edit the "
                               "pipeline and select Settable at queue time on the variables tab",
                               "PipelineValidationException")
        run = {"id": len(self.runs) + 1, "name": f"20260101.{len(self.runs) + 1}",
               "state": "inProgress", "createdDate": NOW,
               "pipeline": {"id": PIPELINE_ID, "name": "reviewbot"},
               "templateParameters": dict(body.get("templateParameters") or {}),
               "url": f"{API}/pipelines/{PIPELINE_ID}/runs/{len(self.runs) + 1}"}
        self.runs.append({**run, "sent": body, "by": user})
        return 200, run

    def _get_run(self, n: int) -> tuple[int, Any]:
        if not 1 <= n <= len(self.runs):
            return 404, _error(f"run {n} not found", "NotFoundException")
        return 200, {k: v for k, v in self.runs[n - 1].items() if k not in ("sent", "by")}

    def _git(self, *args: str) -> str:
        return subprocess.run(["git", *args], cwd=self.repo, check=True, capture_output=True,
                              text=True).stdout


def _identity(user: dict[str, Any]) -> dict[str, Any]:
    return {**user, "url": f"{SERVER}/{ORGANIZATION}/_apis/Identities/{user['id']}"}


def _comment(c: dict[str, Any]) -> dict[str, Any]:
    return {**c, "author": _identity(c["author"])}


def _list(items: list[dict[str, Any]]) -> tuple[int, Any]:
    return 200, {"count": len(items), "value": items}


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"$id": "1", "message": message, "typeName": f"Microsoft.VisualStudio.{kind}",
            "typeKey": kind, "errorCode": 0, "eventId": 3000}
