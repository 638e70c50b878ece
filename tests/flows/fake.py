"""The fake GitHub with what a conversation needs besides: the PR's fork and
`maintainer_can_modify`, the repository activity API (pushes and when GitHub recorded them),
and a PR head that follows a real bare repository (`origin`), so a push the bot makes with git
moves the head GitHub reports. Requests are validated as in `FakeGitHub`."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

from tests.forges.fakegithub import FakeGitHub


class ChatGitHub(FakeGitHub):
    def __init__(self, head: str, base: str, diff: dict[str, set[int]], origin: Path,
                 head_ref: str = "feature") -> None:
        super().__init__(head, diff)
        self.base, self.origin, self.head_ref = base, origin, head_ref
        self.fork: str | None = None  # the head repository, when not octo/demo
        self.maintainer_can_modify = False
        self.activity: dict[str, list[dict[str, Any]]] = {}  # repository -> pushes, oldest first
        self.now = "2026-01-02T10:30:00Z"  # when GitHub records a push it sees in `origin`
        self.events: list[dict[str, Any]] = []  # the pull request's issue events, oldest first

    def labeled(self, name: str, login: str, *, bot: bool = False) -> None:
        """`login` added the label `name` (it is on the pull request, and the event recorded)."""
        with self._lock:
            labels = self.s.labels.setdefault(self.number, [])
            labels += [] if name in labels else [name]
            actor = {**self._user(login), "type": "Bot" if bot else "User"}
            self.events.append({
                "id": len(self.events) + 1, "node_id": f"LE_{len(self.events) + 1}",
                "url": self._url(f"/issues/events/{len(self.events) + 1}"), "actor": actor,
                "event": "labeled", "commit_id": None, "commit_url": None,
                "created_at": self.now, "label": {"name": name, "color": "ededed"}})

    def pushed(self, sha: str, at: str, before: str = "0" * 40) -> None:
        """GitHub recorded a push of `sha` to the head branch at `at`."""
        repository = self.fork or f"{self.owner}/{self.repo}"
        entries = self.activity.setdefault(repository, [])
        entries.append({"id": len(entries) + 1, "node_id": f"A_{len(entries) + 1}",
                        "before": before, "after": sha, "ref": f"refs/heads/{self.head_ref}",
                        "timestamp": at, "activity_type": "push",
                        "actor": self._user("someone")})

    def _follow(self) -> None:
        sha = subprocess.run(["git", "--git-dir", str(self.origin), "rev-parse",
                              f"refs/heads/{self.head_ref}"], capture_output=True, text=True,
                             check=True).stdout.strip()
        if sha != self.s.head:
            if not any(e["after"] == sha for es in self.activity.values() for e in es):
                self.pushed(sha, self.now, self.s.head)  # a push the test did not announce
            self.s.head = sha
            self.s.commits.add(sha)

    def _route(self, method: str, path: str, query: dict[str, list[str]], body: Any
               ) -> tuple[int, Any]:
        with self._lock:
            self._follow()
            found = re.fullmatch(r"/repos/([^/]+/[^/]+)/activity", path)
            if method == "GET" and found:
                ref = (query.get("ref") or [None])[0]
                entries = [e for e in reversed(self.activity.get(found.group(1), []))
                           if ref is None or e["ref"] == ref]
                return 200, entries[: int(query.get("per_page", ["30"])[0])]
            found = re.fullmatch(rf"/repos/{self.owner}/{self.repo}/issues/{self.number}/events",
                                 path)
            if method == "GET" and found:
                return 200, self._page(list(self.events), query)
            found = re.fullmatch(rf"/repos/{self.owner}/{self.repo}/issues/{self.number}/labels",
                                 path)
            if method == "GET" and found:
                return 200, [self._label(n) for n in self.s.labels.get(self.number, [])]
            return super()._route(method, path, query, body)

    def _pull(self) -> dict[str, Any]:
        data = super()._pull()
        data["head"]["ref"] = self.head_ref
        data["base"]["sha"] = self.base
        data["maintainer_can_modify"] = self.maintainer_can_modify
        if self.fork:
            data["head"]["repo"] = {"id": 2, "name": self.fork.split("/")[1],
                                    "full_name": self.fork,
                                    "clone_url": f"https://github.com/{self.fork}.git",
                                    "url": f"{self.api_url}/repos/{self.fork}"}
        return data
