"""A fake Gitea behind `httpx.MockTransport`: REST under /api/v1, for one repository and its
pull request #1.

Every request is checked against Gitea's API description (`tests/forges/gitea/spec.py`):
the operation exists, its path and query parameters are declared with the right types, its
JSON body validates with undeclared keys refused. Every JSON answer of the fake is checked
against the operation's response schema too. What is wrong goes to `errors` (answered 400
for a request), which the tests assert empty.

Behaviour follows Gitea's handlers: a review comment sits on `new_position` (a head line) or
`old_position` (a base line); one on a line outside the pull request's diff is stored but
shown nowhere (`invisible()`). `PATCH /issues/comments/{id}` edits review comments too;
`DELETE /issues/comments/{id}` answers 204 and leaves a review comment where it is; deleting
a review deletes its comments, replies included (a reply is stored in the review it
answers). The resolve operations exist only when the fake plays Gitea 1.26 or later. Diffs
come from real git in a real repository. Nulls are left out of answers (Swagger 2.0 cannot
say a field may be null; the client reads both).
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import httpx

from tests.forges.gitea import spec

OWNER, NAME = "octo", "demo"
REPOSITORY = f"{OWNER}/{NAME}"
SERVER = "https://gitea.test"
API = f"{SERVER}/api/v1"
BOT = {"id": 50, "login": "reviewbot", "full_name": "reviewbot", "email": "bot@gitea.test"}
HUMAN = {"id": 7, "login": "alice", "full_name": "Alice", "email": "alice@gitea.test"}
ACTIONS = {"id": -2, "login": "gitea-actions", "full_name": "Gitea Actions",
           "email": "teabot@gitea.io"}
TOKENS = {"bot-token": BOT, "alice-token": HUMAN}
NOW = "2026-01-01T00:00:00Z"
# "deleted": someone deleted the comment the request names just before it arrived (Gitea's
# own answer for a comment that is gone follows); "404" answers 404 and leaves it.
FAULT_KINDS = ("500-before", "500-after", "429", "403", "404", "timeout-before",
               "timeout-after", "deleted")


@dataclass
class Fault:
    """Answer the next `times` requests whose `METHOD path` matches `target` (a regex over
    the path without /api/v1) with `kind` instead of normally."""

    target: str
    kind: str
    times: int = 1
    hit: int = 0


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
class FakeGitea:
    repo: Path  # a git repository with `base` and `head` branches
    base: str = "main"
    head: str = "feature"
    version: str = "1.22.6"
    number: int = 1
    errors: list[str] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    permissions: dict[str, str] = field(default_factory=lambda: {"alice": "write"})
    users: dict[str, dict[str, Any]] = field(default_factory=lambda: {
        u["login"]: u for u in (BOT, HUMAN, ACTIONS)})
    reviews: list[dict[str, Any]] = field(default_factory=list)
    comments: list[dict[str, Any]] = field(default_factory=list)  # review (code) comments
    issue_comments: list[dict[str, Any]] = field(default_factory=list)
    statuses: list[dict[str, Any]] = field(default_factory=list)
    labels: list[dict[str, Any]] = field(default_factory=lambda: [
        {"id": 1, "name": "reviewbot:apply", "color": "00aabb"},
        {"id": 2, "name": "reviewbot:regressions", "color": "ee0000"},
        {"id": 3, "name": "bug", "color": "ee0000"}])
    issues: dict[int, dict[str, Any]] = field(default_factory=dict)
    reactions: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    activities: list[dict[str, Any]] = field(default_factory=list)
    open: bool = True

    def __post_init__(self) -> None:
        self._ids = itertools.count(100)
        self.issues[self.number] = {"number": self.number, "title": "A change", "body": "",
                                    "state": "open", "labels": set(), "user": HUMAN, "pull": True}
        self.head_sha = ""
        self._headers: dict[str, str] = {}
        self.push()

    # -- the test's side -------------------------------------------------------------------

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    @property
    def resolvable(self) -> bool:
        major, minor = (int(x) for x in self.version.split(".")[:2])
        return "+gitea-" not in self.version and (major, minor) >= (1, 26)

    def push(self, when: str = NOW, sha: str | None = None) -> None:
        """The head branch as pushed now (a push activity recorded at `when`)."""
        self.head_sha = sha or self._git("rev-parse", self.head).strip()
        content = json.dumps({"Commits": [{"Sha1": self.head_sha, "Message": "change"}],
                              "HeadCommit": {"Sha1": self.head_sha, "Message": "change"},
                              "CompareURL": "", "Len": 1})
        self.activities.insert(0, {"id": next(self._ids), "op_type": "commit_repo",
                                   "ref_name": f"refs/heads/{self.head}", "content": content,
                                   "created": when, "act_user": HUMAN, "act_user_id": HUMAN["id"]})

    def base_sha(self) -> str:
        return self._git("merge-base", self.base, self.head_sha).strip()

    def diff(self) -> str:
        return self._git("diff", "--no-color", self.base_sha(), self.head_sha)

    def diff_lines(self) -> dict[str, set[int]]:
        out: dict[str, set[int]] = {}
        path = None
        for line in self.diff().splitlines():
            if line.startswith("+++ "):
                path = None if line == "+++ /dev/null" else line[6:]
                if path is not None:
                    out.setdefault(path, set())
            found = re.match(r"@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", line)
            if found and path is not None:
                start, count = int(found.group(1)), int(found.group(2) or 1)
                out[path] |= set(range(start, start + count))
        return out

    def reply(self, comment_id: int, body: str, user: dict[str, Any] = HUMAN) -> dict[str, Any]:
        """A reply in the conversation of `comment_id`, as Gitea's page makes one: a comment
        on the same line, stored in the review it answers (services/pull/review.go gives a
        reply the replied review's id), written by the replier."""
        target = next(c for c in self.comments if c["id"] == comment_id)
        review = next(r for r in self.reviews if r["id"] == target["review"])
        return self._new_comment(review, user, target["path"], body, target.get("position", 0),
                                 target.get("original_position", 0), target["commit_id"])

    def writes(self) -> list[Call]:
        return [c for c in self.calls if c.write]

    def bot_comments(self) -> list[dict[str, Any]]:
        return [c for c in self.comments if c["user"]["id"] == BOT["id"]]

    def invisible(self) -> list[dict[str, Any]]:
        return [c for c in self.comments if not c["visible"]]

    def summaries(self) -> list[dict[str, Any]]:
        return [c for c in self.issue_comments if "reviewbot:summary" in c["body"]]

    # -- the HTTP side -----------------------------------------------------------------------

    def handle(self, request: httpx.Request) -> httpx.Response:
        url = urlsplit(str(request.url))
        path = unquote(url.path).removeprefix(spec.BASE)
        raw_path = url.path.removeprefix(spec.BASE)
        query = parse_qs(url.query, keep_blank_values=True)
        body = request.content
        method = request.method
        try:
            value = json.loads(body) if body else None
        except ValueError:
            value = body
        self.calls.append(Call(method, path, query, value))
        problems = spec.request_errors(method, path, query, body, self.resolvable)
        if problems:
            self.errors += problems
            return self._json(400, {"message": "; ".join(problems)})
        token = (request.headers.get("authorization") or "").removeprefix("token ")
        user = TOKENS.get(token)
        if user is None:
            return self._json(401, {"message": "token is required"})
        fault = self._fault(method, path)
        if fault in ("500-before", "429", "403", "404", "timeout-before"):
            return self._faulted(fault, request)
        if fault == "deleted":
            named = re.search(r"/comments/(\d+)", path)
            gone = self._find(named.group(1)) if named else None
            self.comments = [c for c in self.comments if c is not gone]
            self.issue_comments = [c for c in self.issue_comments if c is not gone]
        status, payload = self._route(method, path, raw_path, query, value, user)
        if fault in ("500-after", "timeout-after"):
            return self._faulted(fault, request)
        if isinstance(payload, (bytes, str)):
            data = payload.encode() if isinstance(payload, str) else payload
            return httpx.Response(status, content=data, headers={"content-type": "text/plain"})
        if status < 400:
            self.errors += spec.response_errors(method, path, status, payload, self.resolvable)
        headers, self._headers = self._headers, {}
        return self._json(status, payload, headers)

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
            return self._json(429, {"message": "rate limited"}, {"Retry-After": "3"})
        if kind == "404":
            return self._json(404, {"message": "not found"})
        if kind == "403":
            return self._json(403, {"message": "user should have permission to write"})
        return self._json(500, {"message": "internal error"})

    def _route(self, method: str, path: str, raw_path: str, query: dict[str, list[str]],
               body: Any, user: dict[str, Any]) -> tuple[int, Any]:
        if path == "/user":
            return 200, _user(user)
        if path == "/version":
            return 200, {"version": self.version}
        prefix = f"/repos/{REPOSITORY}"
        feeds = re.fullmatch(r"/repos/([^/]+/[^/]+)/activities/feeds", path)
        if feeds:
            if feeds.group(1) != REPOSITORY:
                return 404, {"message": "not found"}
            return self._page(self.activities, query)
        if not path.startswith(prefix + "/"):
            return 404, {"message": "repository not found"}
        rest = path[len(prefix):]
        routes: list[tuple[str, str, Callable[..., tuple[int, Any]]]] = [
            ("GET", rf"/pulls/{self.number}", self._pull),
            ("GET", rf"/pulls/{self.number}\.diff", lambda: (200, self.diff())),
            ("GET", rf"/pulls/{self.number}/reviews", lambda: self._page(
                [_review(r) for r in self.reviews if r["state"] != "PENDING"], query)),
            ("POST", rf"/pulls/{self.number}/reviews", lambda: self._create_review(body, user)),
            ("GET", rf"/pulls/{self.number}/reviews/(\d+)/comments", self._review_comments),
            ("DELETE", rf"/pulls/{self.number}/reviews/(\d+)",
             lambda rid: self._delete_review(rid, user)),
            ("POST", rf"/pulls/{self.number}/comments/(\d+)/(resolve|unresolve)",
             lambda cid, action: self._resolve(cid, action, user)),
            ("GET", r"/issues/(\d+)/comments", lambda n: (200, [
                _comment(c) for c in self.issue_comments if c["issue"] == int(n)])),
            ("POST", r"/issues/(\d+)/comments", lambda n: self._create_issue_comment(
                int(n), body, user)),
            ("PATCH", r"/issues/comments/(\d+)", lambda cid: self._edit_comment(cid, body, user)),
            ("DELETE", r"/issues/comments/(\d+)", lambda cid: self._delete_comment(cid, user)),
            ("POST", r"/issues/comments/(\d+)/reactions", lambda cid: self._react(
                int(cid), body, user)),
            ("GET", r"/statuses/([0-9a-f]+)", lambda sha: self._page(
                [s for s in sorted(self.statuses, key=lambda s: -s["id"]) if s["sha"] == sha],
                query, lambda s: {k: v for k, v in s.items() if k != "sha"})),
            ("POST", r"/statuses/([0-9a-f]+)", lambda sha: self._status(sha, body, user)),
            ("GET", r"/collaborators/([^/]+)/permission", self._permission),
            ("GET", r"/labels", lambda: self._page(self.labels, query)),
            ("GET", r"/issues/(\d+)/labels", lambda n: (200, self._issue_labels(int(n)))),
            ("POST", r"/issues/(\d+)/labels", lambda n: self._labels(int(n), body, add=True)),
            ("PUT", r"/issues/(\d+)/labels", lambda n: self._labels(int(n), body, add=False)),
            ("DELETE", r"/issues/(\d+)/labels/(\d+)", self._unlabel),
            ("GET", r"/issues", lambda: self._list_issues(query)),
            ("POST", r"/issues", lambda: self._create_issue(body, user)),
            ("GET", r"/issues/(\d+)", lambda n: self._issue_answer(int(n), 200)),
            ("PATCH", r"/issues/(\d+)", lambda n: self._edit_issue(int(n), body)),
            ("GET", r"/raw/(.+)", lambda p: self._raw(p, query)),
        ]
        for verb, pattern, action in routes:
            match = re.fullmatch(pattern, rest)
            if verb == method and match:
                return action(*match.groups())
        self.errors.append(f"{method} {path}: described by Gitea but not faked")
        return 404, {"message": "not faked"}

    # -- pull request ------------------------------------------------------------------------

    def _repository(self) -> dict[str, Any]:
        return {"id": 1, "name": NAME, "full_name": REPOSITORY, "owner": _user(HUMAN),
                "clone_url": f"{SERVER}/{REPOSITORY}.git", "default_branch": self.base,
                "fork": False, "private": False}

    def _pull(self) -> tuple[int, Any]:
        repo = self._repository()
        return 200, {
            "id": 1, "number": self.number, "title": "A change", "body": "",
            "state": "open" if self.open else "closed", "user": _user(HUMAN),
            "allow_maintainer_edit": True, "merged": False,
            "head": {"label": self.head, "ref": self.head, "sha": self.head_sha, "repo": repo,
                     "repo_id": 1},
            "base": {"label": self.base, "ref": self.base, "sha": self.base_sha(), "repo": repo,
                     "repo_id": 1},
            "labels": [self._label(i) for i in sorted(self.issues[self.number]["labels"])],
            "created_at": NOW, "updated_at": NOW}

    def _new_review(self, user: dict[str, Any], body: str, commit: str) -> dict[str, Any]:
        review = {"id": next(self._ids), "user": user, "body": body, "commit_id": commit,
                  "state": "COMMENT", "submitted_at": NOW}
        self.reviews.append(review)
        return review

    def _new_comment(self, review: dict[str, Any], user: dict[str, Any], path: str, body: str,
                     new: int, old: int, commit: str) -> dict[str, Any]:
        visible = (new in self.diff_lines().get(path, set())) if new > 0 else old > 0
        comment = {"id": next(self._ids), "review": review["id"], "user": user, "path": path,
                   "body": body, "commit_id": commit, "created_at": NOW, "visible": visible,
                   **({"position": new} if new > 0 else {"original_position": old})}
        self.comments.append(comment)
        return comment

    def _create_review(self, body: dict[str, Any], user: dict[str, Any]) -> tuple[int, Any]:
        event = body.get("event") or "PENDING"
        comments = body.get("comments") or []
        if event == "COMMENT" and not comments and not str(body.get("body") or "").strip():
            return 422, {"message": "review event COMMENT requires a body or a comment"}
        review = self._new_review(user, str(body.get("body") or ""),
                                  str(body.get("commit_id") or self.head_sha))
        review["state"] = event if event in ("COMMENT", "APPROVED", "REQUEST_CHANGES") else "PENDING"
        for c in comments:
            self._new_comment(review, user, str(c.get("path")), str(c.get("body") or ""),
                              int(c.get("new_position") or 0), int(c.get("old_position") or 0),
                              review["commit_id"])
        return 200, _review(review, self.comments)

    def _review_comments(self, rid: str) -> tuple[int, Any]:
        if not any(r["id"] == int(rid) for r in self.reviews):
            return 404, {"message": "review not found"}
        return 200, [_code(c) for c in self.comments if c["review"] == int(rid)]

    def _delete_review(self, rid: str, user: dict[str, Any]) -> tuple[int, Any]:
        review = next((r for r in self.reviews if r["id"] == int(rid)), None)
        if review is None:
            return 404, {"message": "review not found"}
        if review["user"]["id"] != user["id"]:
            return 403, {"message": "not the reviewer"}
        self.reviews.remove(review)
        self.comments = [c for c in self.comments if c["review"] != review["id"]]
        return 204, None

    def _resolve(self, cid: str, action: str, user: dict[str, Any]) -> tuple[int, Any]:
        comment = next((c for c in self.comments if c["id"] == int(cid)), None)
        if comment is None:
            return 404, {"message": "comment not found"}
        if action == "resolve":
            comment["resolver"] = user
        else:
            comment.pop("resolver", None)
        return 200, _code(comment)

    # -- comments ------------------------------------------------------------------------------

    def _create_issue_comment(self, number: int, body: dict[str, Any], user: dict[str, Any]
                              ) -> tuple[int, Any]:
        if number not in self.issues:
            return 404, {"message": "issue not found"}
        comment = {"id": next(self._ids), "issue": number, "user": user,
                   "body": str(body.get("body") or ""), "created_at": NOW}
        self.issue_comments.append(comment)
        return 201, _comment(comment)

    def _find(self, cid: str) -> dict[str, Any] | None:
        return next((c for c in [*self.issue_comments, *self.comments] if c["id"] == int(cid)),
                    None)

    def _edit_comment(self, cid: str, body: dict[str, Any], user: dict[str, Any]
                      ) -> tuple[int, Any]:
        comment = self._find(cid)
        if comment is None:
            return 404, {"message": "comment not found"}
        if comment["user"]["id"] != user["id"] and self.permissions.get(user["login"]) not in (
                "write", "admin", "owner"):
            return 403, {"message": "forbidden"}
        comment["body"] = str(body.get("body") or "")
        return 200, _comment({**comment, "issue": self.number})

    def _delete_comment(self, cid: str, user: dict[str, Any]) -> tuple[int, Any]:
        comment = self._find(cid)
        if comment is None:
            return 404, {"message": "comment not found"}
        if comment in self.comments:
            return 204, None  # Gitea: a code comment is not deleted here
        self.issue_comments.remove(comment)
        return 204, None

    def _react(self, cid: int, body: dict[str, Any], user: dict[str, Any]) -> tuple[int, Any]:
        if self._find(str(cid)) is None:
            return 404, {"message": "comment not found"}
        content = str(body.get("content") or "")
        if content not in ("+1", "-1", "laugh", "hooray", "confused", "heart", "rocket", "eyes"):
            return 403, {"message": f"'{content}' is not an allowed reaction"}
        have = self.reactions.setdefault(cid, [])
        found = next((r for r in have if r["user"]["id"] == user["id"] and r["content"] == content),
                     None)
        if found is not None:
            return 200, {**found, "user": _user(found["user"])}
        reaction = {"user": user, "content": content, "created_at": NOW}
        have.append(reaction)
        return 201, {**reaction, "user": _user(user)}

    # -- statuses, permissions, labels, issues, files ------------------------------------------

    def _status(self, sha: str, body: dict[str, Any], user: dict[str, Any]) -> tuple[int, Any]:
        if body.get("state") not in ("pending", "success", "error", "failure", "warning"):
            return 400, {"message": "invalid state"}
        status = {"id": next(self._ids), "sha": sha, "status": body["state"],
                  "context": str(body.get("context") or "default"),
                  "description": str(body.get("description") or ""),
                  "target_url": str(body.get("target_url") or ""), "creator": _user(user),
                  "created_at": NOW, "updated_at": NOW}
        self.statuses.append(status)
        return 201, {k: v for k, v in status.items() if k != "sha"}

    def _permission(self, login: str) -> tuple[int, Any]:
        user = self.users.get(login)
        if user is None:
            return 404, {"message": "user not found"}
        level = self.permissions.get(login, "none" if user["id"] > 0 else "write")
        return 200, {"permission": level, "role_name": level, "user": _user(user)}

    def _label(self, lid: int) -> dict[str, Any]:
        return next(label for label in self.labels if label["id"] == lid)

    def _issue_labels(self, number: int) -> list[dict[str, Any]]:
        return [self._label(i) for i in sorted(self.issues[number]["labels"])]

    def _labels(self, number: int, body: dict[str, Any], *, add: bool) -> tuple[int, Any]:
        ids = set(body.get("labels") or [])
        known = {label["id"] for label in self.labels}
        if not ids <= known or number not in self.issues:
            return 404, {"message": "label not found"}
        issue = self.issues[number]
        issue["labels"] = issue["labels"] | ids if add else ids
        return 200, self._issue_labels(number)

    def _unlabel(self, number: str, lid: str) -> tuple[int, Any]:
        if not any(label["id"] == int(lid) for label in self.labels):
            return 422, {"message": "label not found"}
        self.issues[int(number)]["labels"].discard(int(lid))
        return 204, None

    def _issue_answer(self, number: int, status: int) -> tuple[int, Any]:
        issue = self.issues.get(number)
        if issue is None:
            return 404, {"message": "issue not found"}
        out = {k: v for k, v in issue.items() if k not in ("labels", "pull")}
        out.update(user=_user(issue["user"]), labels=self._issue_labels(number),
                   created_at=NOW, updated_at=NOW)
        if issue.get("pull"):
            out["pull_request"] = {"merged": False, "draft": False}
        return status, out

    def _list_issues(self, query: dict[str, list[str]]) -> tuple[int, Any]:
        state = (query.get("state") or ["open"])[0]
        kind = (query.get("type") or [""])[0]
        names = [n for n in (query.get("labels") or [""])[0].split(",") if n]
        wanted = {label["id"] for label in self.labels if label["name"] in names}
        found = [self._issue_answer(n, 200)[1] for n, issue in sorted(self.issues.items(),
                                                                      reverse=True)
                 if (state == "all" or issue["state"] == state)
                 and not (kind == "issues" and issue.get("pull"))
                 and not (kind == "pulls" and not issue.get("pull"))
                 and (not names or (len(wanted) == len(names) and wanted <= issue["labels"]))]
        return self._page(found, query)

    def _create_issue(self, body: dict[str, Any], user: dict[str, Any]) -> tuple[int, Any]:
        number = max(self.issues) + 1
        ids = set(body.get("labels") or [])
        if not ids <= {label["id"] for label in self.labels}:
            return 422, {"message": "label does not exist"}
        self.issues[number] = {"number": number, "title": str(body.get("title") or ""),
                               "body": str(body.get("body") or ""),
                               "state": "closed" if body.get("closed") else "open",
                               "labels": ids, "user": user}
        return self._issue_answer(number, 201)

    def _edit_issue(self, number: int, body: dict[str, Any]) -> tuple[int, Any]:
        issue = self.issues.get(number)
        if issue is None:
            return 404, {"message": "issue not found"}
        for key in ("title", "body", "state"):
            if key in body:
                issue[key] = body[key]
        return self._issue_answer(number, 201)

    def _raw(self, path: str, query: dict[str, list[str]]) -> tuple[int, Any]:
        ref = (query.get("ref") or [self.base])[0]
        shown = subprocess.run(["git", "show", f"{ref}:{path}"], cwd=self.repo,
                               capture_output=True, check=False)
        if shown.returncode != 0:
            return 404, {"message": "file not found"}
        return 200, shown.stdout

    def _page(self, items: list[dict[str, Any]], query: dict[str, list[str]],
              shape: Callable[[dict[str, Any]], dict[str, Any]] | None = None
              ) -> tuple[int, Any]:
        page = int((query.get("page") or ["1"])[0])
        limit = min(50, int((query.get("limit") or ["50"])[0]))
        chunk = items[(page - 1) * limit: page * limit]
        self._headers = {"X-Total-Count": str(len(items))}
        if page * limit < len(items):
            self._headers["Link"] = f'<{API}/next?page={page + 1}>; rel="next"'
        return 200, [shape(x) if shape else x for x in chunk]

    def _git(self, *args: str) -> str:
        return subprocess.run(["git", *args], cwd=self.repo, check=True, capture_output=True,
                              text=True).stdout


def _user(user: dict[str, Any]) -> dict[str, Any]:
    return {"id": user["id"], "login": user["login"], "full_name": user["full_name"],
            "email": user["email"], "login_name": "", "is_admin": False}


def _comment(comment: dict[str, Any]) -> dict[str, Any]:
    return {"id": comment["id"], "body": comment["body"], "user": _user(comment["user"]),
            "created_at": comment["created_at"], "updated_at": comment["created_at"],
            "issue_url": f"{SERVER}/{REPOSITORY}/issues/{comment.get('issue', 1)}"}


def _code(comment: dict[str, Any]) -> dict[str, Any]:
    out = {"id": comment["id"], "body": comment["body"], "user": _user(comment["user"]),
           "path": comment["path"], "commit_id": comment["commit_id"],
           "original_commit_id": comment["commit_id"], "pull_request_review_id": comment["review"],
           "created_at": comment["created_at"], "updated_at": comment["created_at"]}
    for key in ("position", "original_position"):
        if key in comment:
            out[key] = comment[key]
    if "resolver" in comment:
        out["resolver"] = _user(comment["resolver"])
    return out


def _review(review: dict[str, Any], comments: list[dict[str, Any]] | None = None
            ) -> dict[str, Any]:
    return {"id": review["id"], "user": _user(review["user"]), "body": review["body"],
            "commit_id": review["commit_id"], "state": review["state"],
            "submitted_at": review["submitted_at"], "official": False, "stale": False,
            "dismissed": False,
            **({"comments_count": sum(1 for c in comments if c["review"] == review["id"])}
               if comments is not None else {})}
