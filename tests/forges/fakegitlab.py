"""A fake GitLab on a loopback HTTP server: REST under /api/v4, for one project and one MR.

Every request is checked against the route's documented parameters (`ROUTES`, each with the
GitLab API documentation page it comes from): an unknown route or parameter, a missing
required one or a bad value is answered 400 and recorded in `errors`, which the tests assert
empty. Diffs and positions come from real git in the project's repository: a diff note is
placed the way GitLab places it, and a position whose old_line/new_line pair does not name a
line of the diff gets GitLab's own 400 `line_code` error. Faults are injected on demand.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import subprocess
import threading
import time
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

from tests.forges.loopback import Fault, json_handler

BOT = {"id": 50, "username": "project_42_bot_1", "name": "reviewbot", "bot": True}
HUMAN = {"id": 7, "username": "alice", "name": "Alice", "bot": False}
TOKENS = {"glpat-bot": BOT, "glpat-alice": HUMAN}
# GitLab's access levels (doc/api/members.md, "Roles"): Guest 10, Planner 15, Reporter 20,
# Developer 30, Maintainer 40, Owner 50.
LEVELS = {"guest": 10, "planner": 15, "reporter": 20, "developer": 30, "maintainer": 40,
          "owner": 50}
NOW = "2026-01-01T00:00:00.000Z"
# A line GitLab would run as a quick action: a slash command at the start of a line.
QUICK_ACTION = re.compile(r" {0,3}/[a-z_]+")
LINE_CODE = ("400 Bad request - Note {:line_code=>[\"can't be blank\", "
             "\"must be a valid line code\"]}")


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # "string", "integer", "boolean", "hash", "sha"
    required: bool = False
    values: tuple[str, ...] = ()


@dataclass(frozen=True)
class Route:
    method: str
    pattern: str  # :id, :iid, :discussion_id, :note_id, :sha
    doc: str  # the page of GitLab's API documentation (gitlabhq/gitlabhq, doc/api/…)
    params: tuple[Param, ...] = ()


PAGED = (Param("page", "integer"), Param("per_page", "integer"))
NOTES_LISTED = (*PAGED, Param("sort", "string", values=("asc", "desc")),
                Param("order_by", "string", values=("created_at", "updated_at")))
ROUTES = (
    Route("GET", "/user", "doc/api/users.md#retrieve-the-current-user"),
    Route("GET", "/projects/:id/merge_requests/:iid", "doc/api/merge_requests.md#get-single-mr",
          (Param("render_html", "boolean"), Param("include_diverged_commits_count", "boolean"),
           Param("include_rebase_in_progress", "boolean"))),
    Route("GET", "/projects/:id/merge_requests/:iid/versions",
          "doc/api/merge_requests.md#get-mr-diff-versions", PAGED),
    Route("GET", "/projects/:id/merge_requests/:iid/diffs",
          "doc/api/merge_requests.md#list-merge-request-diffs", (*PAGED, Param("unidiff", "boolean"))),
    Route("GET", "/projects/:id/merge_requests/:iid/discussions",
          "doc/api/discussions.md#list-project-merge-request-discussion-items", PAGED),
    Route("POST", "/projects/:id/merge_requests/:iid/discussions",
          "doc/api/discussions.md#create-new-merge-request-thread",
          (Param("body", "string", True), Param("commit_id", "sha"), Param("created_at", "string"),
           Param("position", "hash"))),
    Route("PUT", "/projects/:id/merge_requests/:iid/discussions/:discussion_id",
          "doc/api/discussions.md#resolve-a-merge-request-thread",
          (Param("resolved", "boolean", True),)),
    Route("PUT", "/projects/:id/merge_requests/:iid/discussions/:discussion_id/notes/:note_id",
          "doc/api/discussions.md#modify-an-existing-merge-request-thread-note",
          (Param("body", "string"), Param("resolved", "boolean"))),
    Route("DELETE", "/projects/:id/merge_requests/:iid/discussions/:discussion_id/notes/:note_id",
          "doc/api/discussions.md#delete-a-merge-request-thread-note"),
    Route("POST", "/projects/:id/merge_requests/:iid/notes",
          "doc/api/notes.md#create-new-merge-request-note",
          (Param("body", "string", True), Param("internal", "boolean"),
           Param("merge_request_diff_head_sha", "sha"), Param("created_at", "string"))),
    Route("GET", "/projects/:id/merge_requests/:iid/notes",
          "doc/api/notes.md#list-all-merge-request-notes", NOTES_LISTED),
    Route("GET", "/projects/:id/issues/:issue_iid/notes",
          "doc/api/notes.md#list-project-issue-notes", NOTES_LISTED),
    Route("PUT", "/projects/:id/merge_requests/:iid/notes/:note_id",
          "doc/api/notes.md#modify-existing-merge-request-note",
          (Param("body", "string", True),)),
    Route("GET", "/projects/:id/repository/commits/:sha/statuses",
          "doc/api/commits.md#list-the-statuses-of-a-commit",
          (*PAGED, Param("ref", "string"), Param("stage", "string"), Param("name", "string"),
           Param("pipeline_id", "integer"), Param("order_by", "string", values=("id", "pipeline_id")),
           Param("sort", "string", values=("asc", "desc")), Param("all", "boolean"))),
    Route("GET", "/users/:user_id", "doc/api/users.md#retrieve-a-user",
          (Param("with_custom_attributes", "boolean"),)),
    Route("GET", "/users", "doc/api/users.md#list-users",
          (*PAGED, Param("username", "string"), Param("search", "string"),
           Param("active", "boolean"), Param("humans", "boolean"), Param("exclude_external", "boolean"))),
    Route("GET", "/projects/:id", "doc/api/projects.md#retrieve-a-project",
          (Param("license", "boolean"), Param("statistics", "boolean"),
           Param("with_custom_attributes", "boolean"))),
    Route("GET", "/projects/:id/repository/files/:file_path/raw",
          "doc/api/repository_files.md#retrieve-a-raw-file-from-a-repository",
          (Param("ref", "string"), Param("lfs", "boolean"))),
    Route("GET", "/projects/:id/members/all/:user_id",
          "doc/api/members.md#retrieve-a-member-of-a-group-or-project-including-inherited-and-invited-members"),
    Route("POST", "/projects/:id/merge_requests/:iid/notes/:note_id/award_emoji",
          "doc/api/emoji_reactions.md#add-a-new-emoji-reaction-to-a-comment",
          (Param("name", "string", True),)),
    Route("PUT", "/projects/:id/merge_requests/:iid", "doc/api/merge_requests.md#update-an-mr",
          (Param("add_labels", "string"), Param("remove_labels", "string"),
           Param("labels", "string"), Param("title", "string"), Param("description", "string"),
           Param("state_event", "string", values=("close", "reopen")),
           Param("target_branch", "string"), Param("assignee_id", "integer"),
           Param("milestone_id", "integer"), Param("discussion_locked", "boolean"),
           Param("remove_source_branch", "boolean"), Param("squash", "boolean"),
           Param("allow_collaboration", "boolean"), Param("allow_maintainer_to_push", "boolean"))),
    Route("GET", "/projects/:id/issues", "doc/api/issues.md#list-project-issues",
          (*PAGED, Param("labels", "string"), Param("state", "string", values=("opened", "closed")),
           Param("order_by", "string", values=("created_at", "updated_at", "priority", "due_date",
                                               "relative_position", "label_priority",
                                               "milestone_due", "popularity", "weight", "title")),
           Param("sort", "string", values=("asc", "desc")), Param("search", "string"),
           Param("in", "string"), Param("author_id", "integer"), Param("scope", "string"),
           Param("confidential", "boolean"))),
    Route("POST", "/projects/:id/issues", "doc/api/issues.md#new-issue",
          (Param("title", "string", True), Param("description", "string"),
           Param("labels", "string"), Param("confidential", "boolean"),
           Param("created_at", "string"), Param("due_date", "string"),
           Param("issue_type", "string", values=("issue", "incident", "test_case", "task")),
           Param("milestone_id", "integer"), Param("weight", "integer"))),
    Route("PUT", "/projects/:id/issues/:issue_iid", "doc/api/issues.md#edit-an-issue",
          (Param("title", "string"), Param("description", "string"), Param("labels", "string"),
           Param("add_labels", "string"), Param("remove_labels", "string"),
           Param("state_event", "string", values=("close", "reopen")),
           Param("confidential", "boolean"), Param("discussion_locked", "boolean"),
           Param("milestone_id", "integer"), Param("due_date", "string"),
           Param("weight", "integer"))),
    Route("POST", "/projects/:id/issues/:issue_iid/notes", "doc/api/notes.md#create-new-issue-note",
          (Param("body", "string", True), Param("internal", "boolean"),
           Param("created_at", "string"))),
    Route("GET", "/projects/:id/repository/commits/:sha/merge_requests",
          "doc/api/commits.md#list-merge-requests-associated-with-a-commit",
          (*PAGED, Param("state", "string", values=("opened", "closed", "locked", "merged")))),
    Route("POST", "/projects/:id/statuses/:sha", "doc/api/commits.md#set-commit-pipeline-status",
          (Param("state", "string", True, ("pending", "running", "success", "failed", "canceled",
                                           "skipped")),
           Param("ref", "string"), Param("name", "string"), Param("context", "string"),
           Param("target_url", "string"), Param("description", "string"),
           Param("coverage", "integer"), Param("pipeline_id", "integer"))),
)
# doc/api/discussions.md, "Create a new thread in the merge request diff": position[...]
POSITION = (Param("base_sha", "sha", True), Param("head_sha", "sha", True),
            Param("start_sha", "sha", True),
            Param("position_type", "string", True, ("text", "image", "file")),
            Param("new_path", "string"), Param("old_path", "string"),
            Param("new_line", "integer"), Param("old_line", "integer"), Param("line_range", "hash"),
            Param("width", "integer"), Param("height", "integer"), Param("x", "integer"),
            Param("y", "integer"))


# Faults (`tests.forges.loopback.Fault`) this fake knows: `target` is "METHOD regex-on-path";
# kinds: "502-after" (do it, then answer 502), "502" (answer 502, do nothing), "429"
# (Retry-After: 7, do nothing), "timeout" (do nothing, answer late), "timeout-after" (do it,
# answer late), "403" (the token may not), "line_code" (GitLab's 400 for a position it cannot
# place: its diff of the version differs from the local one), "429-reset" (a 429 that says
# when in RateLimit-Reset alone), "deleted" (someone deleted the thread or note the request
# names just before it arrived: GitLab's own 404 for it).
FAULT_KINDS = ("502-after", "502", "429", "429-reset", "timeout", "timeout-after", "403",
               "line_code", "deleted")


@dataclass
class Call:
    method: str
    path: str
    params: dict[str, Any]
    status: int

    @property
    def write(self) -> bool:
        return self.method != "GET"


@dataclass
class FileDiff:
    old_path: str
    new_path: str
    status: str  # A, M, D, R
    hunks: str
    added: set[int] = field(default_factory=set)  # new lines
    context: dict[int, int] = field(default_factory=dict)  # new line -> old line


class FakeGitLab:
    def __init__(self, repo: Path, target: str = "main", source: str = "feature",
                 project_id: int = 42, iid: int = 3, late: float = 1.5,
                 follow: bool = False) -> None:
        self.repo, self.target, self.source = repo, target, source
        self.project_id, self.iid, self.late = project_id, iid, late
        # follow: `repo` is the bare repository GitLab serves, and a push to the source branch
        # (the bot's too) makes a new diff version, as GitLab does after each push.
        self.follow = follow
        self.state = "opened"
        self.labels: list[str] = []  # the merge request's
        self.users: dict[int, dict[str, Any]] = {u["id"]: dict(u) for u in (BOT, HUMAN)}
        self.members: dict[int, int] = {}  # user id -> access level (members/all)
        self.awards: dict[int, list[dict[str, Any]]] = {}  # note id -> award emoji
        self.issues: list[dict[str, Any]] = []
        self.commit_mrs: dict[str, list[dict[str, Any]]] = {}  # sha -> merge requests
        # A fork: the source project (its id, path and clone URL) and allow_collaboration.
        self.source_project: dict[str, Any] = {"id": project_id, "path_with_namespace": "group/demo",
                                               "http_url_to_repo": str(repo)}
        self.allow_collaboration = False
        self.versions: list[dict[str, Any]] = []
        self.discussions: list[dict[str, Any]] = []
        self.statuses: list[dict[str, Any]] = []
        self.pipelines: set[str] = set()  # shas a pipeline ran on besides the versions' heads
        self.calls: list[Call] = []
        self.errors: list[str] = []
        self.faults: list[Fault] = []
        self._ids = itertools.count(9001)
        self._lock = threading.RLock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), json_handler(self.handle))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        host, port = self._server.server_address[:2]
        self.root = f"http://{host}:{port}"
        self.api_url = f"{self.root}/api/v4"
        self.push()

    def __enter__(self) -> FakeGitLab:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- test helpers -------------------------------------------------------------------

    def push(self) -> None:
        """A new diff version from the source branch's tip, as GitLab makes on each push."""
        head = self._git("rev-parse", self.source).strip()
        start = self._git("rev-parse", self.target).strip()
        base = self._git("merge-base", start, head).strip()
        if self.follow:  # GitLab keeps the MR head (a fork's too) under this ref of the target
            self._git("update-ref", f"refs/merge-requests/{self.iid}/head", head)
        with self._lock:
            self.versions.insert(0, {
                "id": 100 + len(self.versions), "head_commit_sha": head, "base_commit_sha": base,
                "start_commit_sha": start, "created_at": NOW, "merge_request_id": 1,
                "state": "collected", "real_size": "1", "patch_id_sha": "0" * 40})

    @property
    def version(self) -> dict[str, Any]:
        return self.versions[0]

    def reply(self, discussion: str, body: str, user: dict[str, Any] = HUMAN) -> None:
        with self._lock:
            thread = self._discussion(discussion)
            thread["notes"].append(self._note(body, user, thread["notes"][0].get("position")))

    def threads(self) -> list[dict[str, Any]]:
        """The bot's diff threads (not the summary)."""
        return [d for d in self.discussions if not d["individual_note"]
                and d["notes"][0]["author"]["id"] == BOT["id"]]

    def summaries(self) -> list[dict[str, Any]]:
        return [d["notes"][0] for d in self.discussions if d["individual_note"]
                and "<!-- reviewbot:summary -->" in d["notes"][0]["body"]]

    def writes(self) -> list[Call]:
        return [c for c in self.calls if c.write]

    def user(self, username: str, level: str | None = None, *, bot: bool = False
             ) -> dict[str, Any]:
        """A user GitLab knows, a member of the project at `level` (None: not a member)."""
        with self._lock:
            uid = 100 + len(self.users)
            self.users[uid] = {"id": uid, "username": username, "name": username.title(),
                               "bot": bot, "state": "active"}
            if level is not None:
                self.members[uid] = LEVELS[level]
            return self.users[uid]

    def note_by(self, user: dict[str, Any], body: str) -> dict[str, Any]:
        """A note someone wrote on the merge request (what the note hook then reports)."""
        with self._lock:
            note = self._note(body, user, None)
            self.discussions.append({"id": self._hex(), "individual_note": True, "notes": [note]})
            return note

    def bot_notes(self) -> list[dict[str, Any]]:
        """The bot's notes on the merge request that are not its summary or a diff thread."""
        return [d["notes"][0] for d in self.discussions if d["individual_note"]
                and d["notes"][0]["author"]["id"] == BOT["id"]
                and "<!-- reviewbot:summary -->" not in d["notes"][0]["body"]]

    def award_names(self, note_id: int) -> list[str]:
        return [a["name"] for a in self.awards.get(note_id, [])]

    def _follow(self) -> None:
        if self.follow and self.versions and \
                self._git("rev-parse", self.source).strip() != self.version["head_commit_sha"]:
            self.push()

    def diff(self) -> dict[str, FileDiff]:
        v = self.version
        return _parse(self._git("diff", "--no-color", "-M", "-U3", v["base_commit_sha"],
                                v["head_commit_sha"]))

    # -- dispatch -----------------------------------------------------------------------

    def handle(self, method: str, raw: str, headers: dict[str, str], body: bytes
               ) -> tuple[int, dict[str, str], Any]:
        split = urlsplit(raw)
        params: dict[str, Any] = {k: v[-1] for k, v in parse_qs(split.query, True).items()}
        data = json.loads(body) if body else {}
        if isinstance(data, dict):
            params.update(data)
        path = split.path.removeprefix("/api/v4")
        token = {k.lower(): v for k, v in headers.items()}.get("private-token")
        user = TOKENS.get(token or "")
        if user is None:
            return self._answer(method, path, params, 401, {"message": "401 Unauthorized"})
        found = _match(method, path)
        if found is None:
            return self._invalid(method, path, params, f"{method} {path}: no such route")
        route, ids = found
        errors = _check(route, params) + self._ids_errors(ids)
        if errors:
            return self._invalid(method, path, params, *errors)
        fault = self._fault(method, path)
        if fault in ("502", "429", "429-reset", "timeout", "403", "line_code"):
            return self._faulted(method, path, params, fault)
        with self._lock:
            if fault == "deleted":
                self._delete_named(ids)
            self._follow()
            status, payload, extra = self._route(route, ids, params, user)
        if fault in ("502-after", "timeout-after"):
            return self._faulted(method, path, params, fault.split("-")[0])
        return self._answer(method, path, params, status, payload, extra)

    def _ids_errors(self, ids: dict[str, str]) -> list[str]:
        out = []
        known = (str(self.project_id), "group%2Fdemo", "group/demo", str(self.source_project["id"]))
        if "id" in ids and ids["id"] not in known:
            out.append(f"unknown project {ids['id']}")
        if "iid" in ids and ids["iid"] != str(self.iid):
            out.append(f"unknown merge request {ids['iid']}")
        return out

    def _answer(self, method: str, path: str, params: dict[str, Any], status: int, payload: Any,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], Any]:
        self.calls.append(Call(method, path, params, status))
        return status, headers or {}, payload

    def _invalid(self, method: str, path: str, params: dict[str, Any], *errors: str
                 ) -> tuple[int, dict[str, str], Any]:
        self.errors.extend(errors)
        return self._answer(method, path, params, 400, {"error": "; ".join(errors)})

    def _fault(self, method: str, path: str) -> str | None:
        with self._lock:
            for fault in self.faults:
                assert fault.kind in FAULT_KINDS, f"no such fault kind: {fault.kind!r}"
                kind, _, pattern = fault.target.partition(" ")
                if kind == method and re.search(pattern, path) and fault.hit < fault.times:
                    fault.hit += 1
                    return fault.kind
        return None

    def _faulted(self, method: str, path: str, params: dict[str, Any], kind: str
                 ) -> tuple[int, dict[str, str], Any]:
        if kind == "timeout":  # recorded on arrival: the client has given up by the answer
            answer = self._answer(method, path, params, 504, {"message": "late"})
            time.sleep(self.late)
            return answer
        if kind == "429":
            return self._answer(method, path, params, 429, {"message": "Retry later"},
                                {"Retry-After": "7", "RateLimit-Reset": str(int(time.time()) + 7)})
        if kind == "429-reset":
            return self._answer(method, path, params, 429, {"message": "Retry later"},
                                {"RateLimit-Remaining": "0",
                                 "RateLimit-Reset": str(int(time.time()) + 5)})
        if kind == "403":
            return self._answer(method, path, params, 403, {"message": "403 Forbidden"})
        if kind == "line_code":
            return self._answer(method, path, params, 400, {"message": LINE_CODE})
        return self._answer(method, path, params, 502, {"message": "502 Bad Gateway"})

    def _delete_named(self, ids: dict[str, str]) -> None:
        """The thread or note a request names removed, as a person deleting it would."""
        if "discussion_id" in ids and "note_id" not in ids:
            self.discussions = [d for d in self.discussions if d["id"] != ids["discussion_id"]]
        elif "note_id" in ids:
            for thread in self.discussions:
                thread["notes"] = [n for n in thread["notes"] if str(n["id"]) != ids["note_id"]]
            self.discussions = [d for d in self.discussions if d["notes"]]

    # -- routes -------------------------------------------------------------------------

    def _route(self, route: Route, ids: dict[str, str], params: dict[str, Any],
               user: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        key = (route.method, route.pattern.rsplit("/projects/:id", 1)[-1])
        if key == ("GET", "/user"):
            return 200, user, {}
        if route.pattern == "/users/:user_id":
            found = self.users.get(int(ids["user_id"])) if ids["user_id"].isdigit() else None
            return (200, found, {}) if found else (404, {"message": "404 User Not Found"}, {})
        if route.pattern == "/users":
            return self._page(route, ids, params, [
                {"id": u["id"], "username": u["username"], "name": u["name"], "state": "active"}
                for u in self.users.values()
                if u["username"] == params.get("username", u["username"])])
        if route.pattern == "/projects/:id":
            if ids["id"] == str(self.source_project["id"]) and ids["id"] != str(self.project_id):
                return 200, self.source_project, {}
            return 200, {"id": self.project_id, "path_with_namespace": "group/demo",
                         "default_branch": self.target, "http_url_to_repo": str(self.repo)}, {}
        if key == ("GET", "/repository/files/:file_path/raw"):
            path = unquote(ids["file_path"])
            ref = params.get("ref", self.target)
            shown = subprocess.run(["git", "show", f"{ref}:{path}"], cwd=self.repo,
                                   capture_output=True)
            if shown.returncode != 0:
                return 404, {"message": "404 File Not Found"}, {}
            return 200, shown.stdout, {}
        if key == ("GET", "/members/all/:user_id"):
            uid = int(ids["user_id"]) if ids["user_id"].isdigit() else 0
            if uid not in self.members:
                return 404, {"message": "404 Not found"}, {}
            u = self.users[uid]
            return 200, {"id": uid, "username": u["username"], "name": u["name"],
                         "state": "active", "access_level": self.members[uid]}, {}
        if key == ("POST", "/merge_requests/:iid/notes/:note_id/award_emoji"):
            return self._award(ids, params, user)
        if key == ("PUT", "/merge_requests/:iid"):
            for name in _labels(params.get("remove_labels")):
                if name in self.labels:
                    self.labels.remove(name)
            self.labels += [n for n in _labels(params.get("add_labels")) if n not in self.labels]
            return 200, self._merge_request(), {}
        if route.pattern.startswith("/projects/:id/issues"):
            return self._issue_route(route, ids, params, user)
        if key == ("GET", "/repository/commits/:sha/merge_requests"):
            return self._page(route, ids, params, self.commit_mrs.get(ids["sha"], []))
        if key == ("GET", "/merge_requests/:iid"):
            return 200, self._merge_request(), {}
        if key == ("GET", "/merge_requests/:iid/versions"):
            return self._page(route, ids, params, self.versions)
        if key == ("GET", "/merge_requests/:iid/diffs"):
            return self._page(route, ids, params, [_diff_json(d) for d in self.diff().values()])
        if key == ("GET", "/merge_requests/:iid/discussions"):
            return self._page(route, ids, params, self.discussions)
        if key == ("POST", "/merge_requests/:iid/discussions"):
            return self._create_discussion(params, user)
        if key == ("PUT", "/merge_requests/:iid/discussions/:discussion_id"):
            thread = self._discussion(ids["discussion_id"])
            if thread is None:
                return 404, {"message": "404 Not found"}, {}
            for note in thread["notes"]:
                if note["resolvable"]:
                    note.update(resolved=_bool(params["resolved"]),
                                resolved_by=user if _bool(params["resolved"]) else None)
            return 200, thread, {}
        if key[1] == "/merge_requests/:iid/discussions/:discussion_id/notes/:note_id":
            return self._thread_note(route.method, ids, params)
        if key == ("GET", "/merge_requests/:iid/notes"):
            notes = [n for d in self.discussions for n in d["notes"]]
            return self._page(route, ids, params, sorted(
                notes, key=lambda n: n["id"], reverse=params.get("sort", "desc") == "desc"))
        if key == ("POST", "/merge_requests/:iid/notes"):
            thread = {"id": self._hex(), "individual_note": True,
                      "notes": [self._note(params["body"], user, None)]}
            self.discussions.append(thread)
            return 201, thread["notes"][0], {}
        if key == ("PUT", "/merge_requests/:iid/notes/:note_id"):
            for thread in self.discussions:
                for note in thread["notes"]:
                    if str(note["id"]) == ids["note_id"]:
                        self.errors.extend(f"a quick action in a note: {line!r}"
                                           for line in quick_actions(params["body"]))
                        note["body"] = params["body"]
                        return 200, note, {}
            return 404, {"message": "404 Not found"}, {}
        if key == ("GET", "/repository/commits/:sha/statuses"):
            return self._page(route, ids, params, [
                s for s in self.statuses
                if s["sha"] == ids["sha"] and s["name"] == params.get("name", s["name"])])
        if key == ("POST", "/statuses/:sha"):
            # GitLab finds the ref of a status through a pipeline of the sha, else a branch
            # holding it (a merge train's result is on neither branch nor version).
            if ids["sha"] not in {v["head_commit_sha"] for v in self.versions} | self.pipelines:
                return 404, {"message": "404 References Not Found"}, {}
            status = {"id": next(self._ids), "sha": ids["sha"], "status": params["state"],
                      "name": params.get("name", "default"),
                      "description": params.get("description"),
                      "target_url": params.get("target_url")}
            self.statuses.append(status)
            return 201, status, {}
        raise AssertionError(f"route without a handler: {route.pattern}")

    def _merge_request(self) -> dict[str, Any]:
        v = self.version
        fork = self.source_project["id"] != self.project_id
        return {"id": 1, "iid": self.iid, "project_id": self.project_id, "state": self.state,
                "sha": v["head_commit_sha"], "source_branch": self.source,
                "target_branch": self.target, "source_project_id": self.source_project["id"],
                "target_project_id": self.project_id, "labels": list(self.labels),
                "allow_collaboration": self.allow_collaboration if fork else None,
                "allow_maintainer_to_push": self.allow_collaboration if fork else None,
                "author": {k: HUMAN[k] for k in ("id", "username", "name")},
                "diff_refs": {"base_sha": v["base_commit_sha"], "head_sha": v["head_commit_sha"],
                              "start_sha": v["start_commit_sha"]}}

    def _award(self, ids: dict[str, str], params: dict[str, Any], user: dict[str, Any]
               ) -> tuple[int, Any, dict[str, str]]:
        note = next((n for d in self.discussions for n in d["notes"]
                     if str(n["id"]) == ids["note_id"]), None)
        if note is None:
            return 404, {"message": "404 Not found"}, {}
        awards = self.awards.setdefault(note["id"], [])
        if any(a["name"] == params["name"] and a["user"]["id"] == user["id"] for a in awards):
            # lib/api/award_emoji.rb: `not_found!("Award Emoji #{award.errors.messages}")`
            return 404, {"message": "404 Award Emoji {:name=>[\"has already been taken\"]} "
                                    "Not Found"}, {}
        award = {"id": next(self._ids), "name": params["name"], "created_at": NOW,
                 "user": {k: user[k] for k in ("id", "username", "name")},
                 "awardable_id": note["id"], "awardable_type": "Note"}
        awards.append(award)
        return 201, award, {}

    def _issue_route(self, route: Route, ids: dict[str, str], params: dict[str, Any],
                     user: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        if user["id"] == BOT["id"]:  # a description runs quick actions as a note does
            self.errors.extend(f"a quick action in an issue: {line!r}"
                               for line in quick_actions(str(params.get("description") or "")))
        if route.method == "GET" and "issue_iid" not in ids:
            wanted = _labels(params.get("labels"))
            items = [i for i in self.issues if all(n in i["labels"] for n in wanted)
                     and params.get("state", i["state"]) == i["state"]]
            items.sort(key=lambda i: i["iid"], reverse=params.get("sort", "desc") == "desc")
            return self._page(route, ids, params, items)
        if route.method == "POST" and "issue_iid" not in ids:
            issue = {"id": next(self._ids), "iid": len(self.issues) + 1, "project_id": self.project_id,
                     "title": params["title"], "description": params.get("description"),
                     "labels": _labels(params.get("labels")), "state": "opened",
                     "author": {k: user[k] for k in ("id", "username", "name")}, "notes": []}
            self.issues.append(issue)
            return 201, issue, {}
        issue = next((i for i in self.issues if str(i["iid"]) == ids["issue_iid"]), None)
        if issue is None:
            return 404, {"message": "404 Issue Not Found"}, {}
        if route.method == "GET":  # the issue's notes
            return self._page(route, ids, params, sorted(
                issue["notes"], key=lambda n: n["id"], reverse=params.get("sort", "desc") == "desc"))
        if route.method == "POST":  # a note on the issue
            note = self._note(params["body"], user, None)
            issue["notes"].append(note)
            return 201, note, {}
        for name in ("title", "description"):
            if name in params:
                issue[name] = params[name]
        if "labels" in params:
            issue["labels"] = _labels(params["labels"])
        if "state_event" in params:
            issue["state"] = "closed" if params["state_event"] == "close" else "opened"
        return 200, issue, {}

    def _page(self, route: Route, ids: dict[str, str], params: dict[str, Any],
              items: list[dict[str, Any]]) -> tuple[int, Any, dict[str, str]]:
        per_page = int(params.get("per_page", 20))
        page = int(params.get("page", 1))
        chunk = items[(page - 1) * per_page: page * per_page]
        headers = {"X-Total": str(len(items)), "X-Page": str(page), "X-Per-Page": str(per_page)}
        if page * per_page < len(items):
            path = re.sub(r":(\w+)", lambda m: ids[m.group(1)], route.pattern)
            query = urlencode({**params, "page": page + 1})
            headers["Link"] = f'<{self.api_url}{path}?{query}>; rel="next"'
            headers["X-Next-Page"] = str(page + 1)
        return 200, chunk, headers

    def _create_discussion(self, params: dict[str, Any], user: dict[str, Any]
                           ) -> tuple[int, Any, dict[str, str]]:
        pos = params.get("position")
        if pos is not None:
            refused = self._place(pos)
            if refused:
                return 400, {"message": refused}, {}
        thread = {"id": self._hex(), "individual_note": False,
                  "notes": [self._note(params["body"], user, pos)]}
        self.discussions.append(thread)
        return 201, thread, {}

    def _place(self, pos: dict[str, Any]) -> str | None:
        """GitLab's answer to a position: None when it names a line of the version's diff."""
        v = self.version
        shas = (pos["base_sha"], pos["start_sha"], pos["head_sha"])
        if shas != (v["base_commit_sha"], v["start_commit_sha"], v["head_commit_sha"]):
            self.errors.append(f"position names {shas}, not the latest diff version")
            return LINE_CODE
        if not pos.get("new_path") or not pos.get("old_path"):
            self.errors.append("position without old_path and new_path")
            return "400 Bad request - position[new_path] is missing"
        diff = self.diff().get(pos["new_path"])
        if diff is None or diff.old_path != pos["old_path"]:
            return LINE_CODE
        if pos["position_type"] == "file":
            return None
        new, old = pos.get("new_line"), pos.get("old_line")
        if new is not None and old is None and int(new) in diff.added:
            return None
        if new is not None and old is not None and diff.context.get(int(new)) == int(old):
            return None
        return LINE_CODE

    def _thread_note(self, method: str, ids: dict[str, str], params: dict[str, Any]
                     ) -> tuple[int, Any, dict[str, str]]:
        thread = self._discussion(ids["discussion_id"])
        note = next((n for n in (thread or {}).get("notes", []) if str(n["id"]) == ids["note_id"]),
                    None)
        if thread is None or note is None:
            return 404, {"message": "404 Not found"}, {}
        if method == "DELETE":
            thread["notes"].remove(note)
            if not thread["notes"]:
                self.discussions.remove(thread)
            return 204, None, {}
        if ("body" in params) == ("resolved" in params):
            self.errors.append("exactly one of body and resolved")
            return 400, {"error": "body, resolved are mutually exclusive"}, {}
        if "body" in params:
            self.errors.extend(f"a quick action in a note: {line!r}"
                               for line in quick_actions(params["body"]))
            note["body"] = params["body"]
        else:
            note["resolved"] = _bool(params["resolved"])
        return 200, note, {}

    def _discussion(self, did: str) -> dict[str, Any] | None:
        return next((d for d in self.discussions if d["id"] == did), None)

    def _note(self, body: str, user: dict[str, Any], pos: dict[str, Any] | None) -> dict[str, Any]:
        if user["id"] == BOT["id"]:
            self.errors.extend(f"a quick action in a note: {line!r}" for line in quick_actions(body))
        return {"id": next(self._ids), "type": "DiffNote" if pos else None, "body": body,
                "author": {k: user[k] for k in ("id", "username", "name")},
                "created_at": NOW, "system": False, "noteable_type": "MergeRequest",
                "resolvable": pos is not None, "resolved": False, "resolved_by": None,
                "position": pos}

    def _hex(self) -> str:
        return hashlib.sha1(str(next(self._ids)).encode()).hexdigest()

    def _git(self, *args: str) -> str:
        return subprocess.run(["git", *args], cwd=self.repo, check=True, capture_output=True,
                              text=True).stdout


def quick_actions(body: str) -> list[str]:
    """The lines of `body` GitLab would run: outside fenced code blocks, starting with /word."""
    out, fence = [], ""
    for line in body.split("\n"):
        marker = re.match(r" {0,3}(`{3,}|~{3,})", line)
        if marker and (not fence or marker.group(1).startswith(fence)):
            fence = "" if fence else marker.group(1)
        elif not fence and QUICK_ACTION.match(line):
            out.append(line)
    return out


def _match(method: str, path: str) -> tuple[Route, dict[str, str]] | None:
    for route in ROUTES:
        if route.method != method:
            continue
        regex = re.sub(r":(\w+)", lambda m: f"(?P<{m.group(1)}>[^/]+)", route.pattern)
        found = re.fullmatch(regex, path)
        if found:
            return route, found.groupdict()
    return None


def _check(route: Route, params: dict[str, Any]) -> list[str]:
    errors = _check_params(route.params, params, route.pattern)
    pos = params.get("position")
    if isinstance(pos, dict):
        errors += _check_params(POSITION, pos, "position")
        if pos.get("position_type") == "text" and not (pos.get("new_path") and pos.get("old_path")):
            errors.append("position: text positions need new_path and old_path")
    return errors


def _check_params(spec: tuple[Param, ...], params: dict[str, Any], where: str) -> list[str]:
    known = {p.name: p for p in spec}
    errors = [f"{where}: undocumented parameter {k}" for k in params if k not in known]
    for p in spec:
        if p.name not in params:
            if p.required:
                errors.append(f"{where}: {p.name} is missing")
            continue
        value = params[p.name]
        ok = {"string": isinstance(value, str),
              "integer": (isinstance(value, int) and not isinstance(value, bool))
              or (isinstance(value, str) and value.isdigit()),
              "boolean": isinstance(value, bool) or value in ("true", "false"),
              "hash": isinstance(value, dict),
              "sha": isinstance(value, str) and re.fullmatch(r"[0-9a-f]{40}", value) is not None,
              }[p.kind]
        if not ok or (p.values and value not in p.values):
            errors.append(f"{where}: {p.name}={value!r} is not a valid {p.kind}")
    return errors


def _labels(value: Any) -> list[str]:
    """A labels parameter: a comma-separated string (the API also takes an array)."""
    items = value if isinstance(value, list) else str(value or "").split(",")
    return [str(v).strip() for v in items if str(v).strip()]


def _bool(value: Any) -> bool:
    return value is True or value == "true"


def _parse(text: str) -> dict[str, FileDiff]:
    """`git diff` output as GitLab's diff files, keyed by new path."""
    out: dict[str, FileDiff] = {}
    current: FileDiff | None = None
    old = new = 0
    for line in text.split("\n"):
        if line.startswith("diff --git "):
            a, b = re.fullmatch(r"diff --git a/(.*) b/(.*)", line).groups()  # type: ignore[union-attr]
            current = out[b] = FileDiff(a, b, "M", "")
        elif current is None:
            continue
        elif line.startswith("new file mode"):
            current.status = "A"
        elif line.startswith("deleted file mode"):
            current.status = "D"
        elif line.startswith("rename from "):
            current.status = "R"
        elif line.startswith("@@"):
            found = re.match(r"@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@", line)
            assert found
            old, new = int(found.group(1)), int(found.group(2))
            current.hunks += line + "\n"
        elif current.hunks and line[:1] in (" ", "+", "-", "\\"):
            current.hunks += line + "\n"
            if line[:1] == "+":
                current.added.add(new)
                new += 1
            elif line[:1] == "-":
                old += 1
            elif line[:1] == " ":
                current.context[new] = old
                old, new = old + 1, new + 1
    return out


def _diff_json(d: FileDiff) -> dict[str, Any]:
    return {"old_path": d.old_path, "new_path": d.new_path, "a_mode": "100644",
            "b_mode": "100644", "new_file": d.status == "A", "renamed_file": d.status == "R",
            "deleted_file": d.status == "D", "generated_file": False, "diff": d.hunks}
