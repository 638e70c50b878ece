"""GitLab's side of a conversation on a merge request (`bot.forges.base.Host`): the merge
request as its latest diff version says, its head mirrored at `refs/merge-requests/IID/head`,
the state in the bot's own summary note, and GitLab's role names.

A webhook's pipeline runs on the default branch: its checkout is never the merge request, so
the head is fetched and every file is read from git at that commit. The head a command was
written against is the payload's `last_commit.id`; the merge request's latest diff version is
what GitLab says the head is now.
"""

from __future__ import annotations

import base64
from typing import Literal
from urllib.parse import urlsplit

from bot.forges.base import Actor, PullRequest, Range
from bot.forges.gitlab.change import GitLabForge
from bot.forges.gitlab.repository import role
from bot.forges.repository import Permission
from bot.model import Trigger


class GitLabHost:
    name: Literal["gitlab"] = "gitlab"
    after_push = ("the push also starts a merge request pipeline of its own, which finds this "
                  "review in place.")

    def __init__(self, forge: GitLabForge, repository: str, server: str = "") -> None:
        self._forge, self._repository = forge, repository
        host = urlsplit(server).hostname or "gitlab.invalid"
        self.author = f"reviewbot <reviewbot@noreply.{host}>"

    def review_range(self, trigger: Trigger) -> Range:
        """Never CI_COMMIT_SHA (a merge commit in merged-result pipelines): the latest diff
        version's base and head."""
        version, is_open = self._forge.version()
        return Range(version.base, version.head, is_open)

    def load(self) -> PullRequest:
        mr = self._forge.merge_request()
        return PullRequest(mr.iid, mr.version.head, mr.version.base, mr.source_branch,
                           mr.source_project if mr.fork else self._repository, mr.source_url,
                           mr.allow_collaboration, mr.open, self._repository)

    def moved_since(self, pr: PullRequest, trigger: Trigger) -> str | None:
        seen = trigger.head_sha
        if seen is None:
            return ("The webhook does not say which head the comment was written against. "
                    "Nothing was done.")
        if pr.head != seen:
            return (f"The merge request's head moved to {pr.head[:12]} after the comment was "
                    f"written at {seen[:12]}. Nothing was done: check the new head and comment "
                    "again.")
        return None

    def head_ref(self, number: int) -> str:
        return f"refs/merge-requests/{number}/head"  # a fork's head is mirrored there too

    def summary_body(self, *, keep: bool = False) -> str | None:
        return self._forge.summary_body(keep=keep)

    def role(self, permission: Permission) -> str:
        return role(permission)

    def labeled_by(self, label: str) -> Actor | None:
        return None  # a label's pipeline here is the trusted job: its event names who acted


def push_env(token: str, server_url: str) -> dict[str, str]:
    """The token as an HTTP header for git on this GitLab server only (GitLab takes an access
    token as the password of any user name), in the environment of one process."""
    server = server_url.rstrip("/")
    if not token or not server:
        return {}
    basic = base64.b64encode(f"reviewbot:{token}".encode()).decode()
    return {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": f"http.{server}/.extraheader",
            "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}"}
