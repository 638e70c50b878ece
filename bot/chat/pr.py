"""The pull request a command or a label is about, as GitHub says now, and the head's commits
in the checkout.

On `issue_comment` the payload carries no sha and the checkout is the default branch: the head
comes from `GET /pulls/{n}` and its commits are fetched from `refs/pull/{n}/head`. Whether the
head is the one a comment was written against is decided by when GitHub recorded the push that
made it the head (the repository activity API), never by commit dates, which whoever made the
commit chose.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from bot import git
from bot.chat import publishing
from bot.chat.state import Conversation
from bot.config import DEFAULT_AUTHOR
from bot.errors import BotError, Exit
from bot.forges.github.api import Api, NotFound
from bot.forges.repository import Permission
from bot.model import Trigger


@dataclass(frozen=True)
class PullRequest:
    number: int
    head: str
    base: str
    head_ref: str
    head_repository: str | None  # None: the fork was deleted
    clone_url: str | None
    maintainer_can_modify: bool
    open: bool
    repository: str

    @property
    def fork(self) -> bool:
        return self.head_repository != self.repository

    @property
    def can_push(self) -> bool:
        """Whether the bot may push to the head branch: its own repository's, or a fork's
        that allows edits by maintainers."""
        return not self.fork or (self.head_repository is not None and self.maintainer_can_modify)


def load(api: Api, number: int) -> PullRequest:
    _, data = api.request("GET", f"{api.url}/pulls/{number}")
    head, base = data["head"], data["base"]
    repo = head.get("repo") if isinstance(head.get("repo"), dict) else None
    return PullRequest(number, str(head["sha"]), str(base["sha"]), str(head["ref"]),
                       str(repo["full_name"]) if repo else None,
                       str(repo.get("clone_url")) if repo and repo.get("clone_url") else None,
                       bool(data.get("maintainer_can_modify")), data.get("state") == "open",
                       api.settings.repository)


def arrived(api: Api, pr: PullRequest) -> datetime | None:
    """When the push that made `pr.head` the head branch's tip was recorded, or None when the
    activity GitHub keeps does not show it (then nobody can tell: the caller refuses)."""
    if pr.head_repository is None:
        return None
    url = f"{api.url.rsplit('/repos/', 1)[0]}/repos/{pr.head_repository}/activity"
    try:
        _, data = api.request("GET", url, parameters={
            "ref": f"refs/heads/{pr.head_ref}", "direction": "desc", "per_page": 100})
    except NotFound:
        return None
    for entry in data if isinstance(data, list) else []:
        if _is_push_of(entry, pr.head):
            return parse_time(str(entry["timestamp"]))
    return None


def _is_push_of(entry: Any, sha: str) -> bool:
    return (isinstance(entry, dict) and entry.get("after") == sha
            and entry.get("activity_type") in ("push", "force_push", "branch_creation")
            and isinstance(entry.get("timestamp"), str))


def parse_time(text: str) -> datetime:
    """GitHub's ISO 8601 timestamps (`Z` or an offset)."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def fetch_head(checkout: Path, pr: PullRequest, env: Mapping[str, str]) -> None:
    """The head's commits into the checkout, from `refs/pull/{n}/head` (which a fork's head
    is mirrored to). Credentials, when given, are in `env` for these git processes only:
    nothing is written to the checkout's git config, where the linters run next. BotError
    when the head GitHub reported cannot be fetched."""
    for sha, ref in ((pr.head, f"refs/pull/{pr.number}/head"), (pr.base, pr.base)):
        if git.rev_parse(checkout, sha) is None:
            git.git(checkout, "fetch", "--quiet", "--no-tags", "origin", ref, env=env,
                        check=False)
        if git.rev_parse(checkout, sha) is None:
            raise BotError(f"commit {sha[:12]} of pull request #{pr.number} could not be "
                           f"fetched ({ref})", Exit.USAGE)


class GitHubHost:
    """GitHub's side of a conversation (`session.Host`)."""

    name: Literal["github", "gitlab"] = "github"
    after_push = "a push made with the workflow's GITHUB_TOKEN starts no new workflow run."
    author = DEFAULT_AUTHOR

    def __init__(self, api: Api, number: int, push_env: Mapping[str, str]) -> None:
        self._api, self._number, self._push_env = api, number, dict(push_env)

    def load(self) -> PullRequest:
        return load(self._api, self._number)

    def moved_since(self, pr: PullRequest, trigger: Trigger) -> str | None:
        """Whether GitHub recorded the push of the head after the comment was written."""
        when = arrived(self._api, pr)
        head = pr.head[:12]
        if when is None:
            return (f"GitHub's activity log does not say when the head {head} arrived, so it "
                    "cannot be told whether the command was written against it. Nothing was done.")
        created_at = trigger.comment_created_at
        if created_at is None or when >= parse_time(created_at):
            return (f"The pull request's head moved to {head} after the comment was written "
                    f"(pushed {when:%Y-%m-%d %H:%M:%S} UTC). Nothing was done: check the new head "
                    "and comment again.")
        return None

    def fetch_head(self, checkout: Path, pr: PullRequest) -> None:
        fetch_head(checkout, pr, self._push_env)

    def read_state(self) -> Conversation:
        return publishing.read_state(self._api, self._number)

    def push_env(self) -> dict[str, str]:
        return dict(self._push_env)

    def role(self, permission: Permission) -> str:
        return permission.label
