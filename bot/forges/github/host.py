"""GitHub's reads for a conversation on a pull request (`change.GitHubChange` answers
`bot.forges.base.Change` with them): the pull request as GitHub says now, when its head
arrived, the bot's own summary comment, who added a label, and the git credentials for one
process.

On `issue_comment` the payload carries no sha and the checkout is the default branch: the head
comes from `GET /pulls/{n}` and its commits are fetched from `refs/pull/{n}/head`. Whether the
head is the one a comment was written against is decided by when GitHub recorded the push that
made it the head (the repository activity API), never by commit dates, which whoever made the
commit chose.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from bot.errors import NotFound
from bot.forges.base import Actor, PullRequest
from bot.forges.gitauth import header_env
from bot.forges.github import own
from bot.forges.github.api import Api
from bot.model import Trigger
from bot.render.markdown import SUMMARY_MARKER


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


def moved_since(api: Api, pr: PullRequest, trigger: Trigger) -> str | None:
    """Whether GitHub recorded the push of the head after the comment was written."""
    when = arrived(api, pr)
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


def issue_comments(api: Api, number: int) -> list[dict[str, Any]]:
    """The change's comments outside the diff, where the summary is."""
    return api.list(f"{api.url}/issues/{number}/comments")


def summary_body(api: Api, number: int, comments: Sequence[Mapping[str, Any]]) -> str | None:
    """Of the change's `comments` (`issue_comments`), the summary's body. Only the bot's own
    comment counts, found as the publish step finds it (`own`): anyone may post a comment that
    looks like a summary, and its state would be theirs."""
    marked = [c for c in comments if SUMMARY_MARKER in (c.get("body") or "")]
    if not marked:
        return None
    found = own.first_ours(marked, ()) or own.first_ours(marked, own.reviewers(
        api.list(f"{api.url}/pulls/{number}/comments")))
    return None if found is None else str(found.get("body") or "")


def labeled_by(api: Api, number: int, label: str) -> Actor | None:
    """The last `labeled` event of `label` in the issue's events, if the label is on the pull
    request now."""
    now = api.list(f"{api.url}/issues/{number}/labels")
    if not any(isinstance(x, dict) and x.get("name") == label for x in now):
        return None
    found: Actor | None = None
    for event in api.list(f"{api.url}/issues/{number}/events"):
        actor = event.get("actor")
        named = event.get("label")
        if event.get("event") == "labeled" and isinstance(named, dict) \
                and named.get("name") == label and isinstance(actor, dict) \
                and isinstance(actor.get("login"), str):
            found = Actor(actor["login"], actor.get("type") == "Bot")
    return found


def push_env(token: str, server_url: str) -> dict[str, str]:
    """The token for git (fetch, push) only, as an HTTP header in the environment of one
    process (what actions/checkout writes into .git/config, which a command never gets)."""
    return header_env("x-access-token", token, server_url or "https://github.com")
