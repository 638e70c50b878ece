"""The GitHub Actions event that started a run: which pull request, which head, which base.

Pure parsing with messages that say what to change. The head sha comes from the payload,
never from GITHUB_SHA (on `pull_request` that is the merge commit).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.errors import BotError, Exit

SHA = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")
WORKFLOW_HINT = ("run it from a workflow with `on: pull_request` "
                 "(types: opened, synchronize, reopened, ready_for_review)")


@dataclass(frozen=True)
class PullRequestEvent:
    action: str
    number: int
    head_sha: str
    head_ref: str
    base_sha: str
    base_ref: str
    repository: str  # owner/name of the base repository: where the review goes
    head_repository: str | None  # None when the fork was deleted
    state: str  # open | closed
    draft: bool

    @property
    def fork(self) -> bool:
        return self.head_repository != self.repository


def load(name: str | None, path: str | None) -> PullRequestEvent:
    if not name:
        raise BotError(f"GITHUB_EVENT_NAME is not set: `reviewbot ci` runs inside GitHub Actions; "
                       f"{WORKFLOW_HINT} (or use `reviewbot review` locally)", Exit.USAGE)
    if not path:
        raise BotError("GITHUB_EVENT_PATH is not set: the event payload is needed", Exit.USAGE)
    try:
        payload = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise BotError(f"cannot read the event payload {path}: {exc.strerror}", Exit.USAGE) from exc
    except ValueError as exc:
        raise BotError(f"the event payload {path} is not JSON: {exc}", Exit.USAGE) from exc
    return parse(name, payload)


def parse(name: str, payload: Any) -> PullRequestEvent:
    if name == "pull_request_target":
        raise BotError("`reviewbot ci` refuses pull_request_target: it runs the pull request's "
                       "linters, which must not see a write token; " + WORKFLOW_HINT, Exit.USAGE)
    if name != "pull_request":
        raise BotError(f"`reviewbot ci` reviews pull requests, but this run was triggered by "
                       f"`{name}`; {WORKFLOW_HINT}", Exit.USAGE)
    pr = _field(payload, "pull_request", dict)
    head = _field(pr, "head", dict, "pull_request.")
    base = _field(pr, "base", dict, "pull_request.")
    base_repo = _field(base, "repo", dict, "pull_request.base.")
    head_repo = head.get("repo")
    return PullRequestEvent(
        action=str(payload.get("action") or ""),
        number=_field(pr, "number", int, "pull_request."),
        head_sha=_sha(head, "pull_request.head.sha"),
        head_ref=_field(head, "ref", str, "pull_request.head."),
        base_sha=_sha(base, "pull_request.base.sha"),
        base_ref=_field(base, "ref", str, "pull_request.base."),
        repository=_field(base_repo, "full_name", str, "pull_request.base.repo."),
        head_repository=str(head_repo["full_name"]) if isinstance(head_repo, dict)
        and isinstance(head_repo.get("full_name"), str) else None,
        state=_field(pr, "state", str, "pull_request."),
        draft=bool(pr.get("draft", False)),
    )


def _field(obj: Any, key: str, kind: type, prefix: str = "") -> Any:
    if not isinstance(obj, dict):
        raise BotError(f"malformed pull_request event: expected an object around `{prefix}{key}`",
                       Exit.USAGE)
    value = obj.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise BotError(f"malformed pull_request event: `{prefix}{key}` is missing or not "
                       f"{'an object' if kind is dict else kind.__name__}", Exit.USAGE)
    return value


def _sha(obj: dict[str, Any], where: str) -> str:
    value = obj.get("sha")
    if not isinstance(value, str) or not SHA.fullmatch(value):
        raise BotError(f"malformed pull_request event: `{where}` is not a commit sha", Exit.USAGE)
    return value
