"""What a conversation on an Azure DevOps pull request needs besides the API, as data: role
names, what a push from a pipeline starts, the apply commit's default author, where a pull
request's head is fetched from, and the git credentials for one push.

`AzureHost` is Azure DevOps's side of a conversation (`bot.forges.base.Host`), over the pull
request's connection (`change.AzureChange`).
"""

from __future__ import annotations

import base64
import re
from datetime import datetime
from typing import Literal

from bot.forges.azure.change import AzureChange
from bot.forges.base import Actor, PullRequest, Range
from bot.forges.repository import Permission
from bot.model import Trigger

# Azure DevOps has no per-user repository role the API reads for another identity: the bot's
# own rule (docs/azure-devops.md) gives `maintain` to the identities its settings name.
ROLES = {Permission.ADMIN: "project administrator", Permission.MAINTAIN: "named maintainer",
         Permission.WRITE: "named maintainer", Permission.TRIAGE: "reader",
         Permission.READ: "reader", Permission.NONE: "not a named maintainer"}

# A push to the source branch makes a new iteration of the pull request; the branch
# policy's build validation queues the review again when it is set to (the default).
AFTER_PUSH = ("the push is a new iteration of the pull request; the branch policy's build "
              "validation queues the review for it.")

AUTHOR = "Azure Pipelines <reviewbot@noreply.dev.azure.com>"


def role(permission: Permission) -> str:
    """The name the bot gives an access level on Azure DevOps."""
    return ROLES[permission]


def head_refspec(number: int) -> str:
    """Azure DevOps keeps a pull request's trial merge at `refs/pull/N/merge`, whose second
    parent is the head: fetching it brings the head's commits, as a source branch's would."""
    return f"refs/pull/{number}/merge"


def push_env(token: str, server_url: str) -> dict[str, str]:
    """The token for one git process, as an HTTP header in its environment only (nothing is
    written to the checkout's git config, where the linters run): the form Azure Pipelines's
    own checkout uses for System.AccessToken (`persistCredentials`)."""
    if not token:
        return {}
    server = server_url.rstrip("/")
    basic = base64.b64encode(f"reviewbot:{token}".encode()).decode()
    return {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": f"http.{server}/.extraheader",
            "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}"}


def _time(text: str) -> datetime:
    # Azure DevOps writes up to seven digits of a second's fraction; six are read.
    return datetime.fromisoformat(re.sub(r"(\.\d{6})\d+", r"\1", text).replace("Z", "+00:00"))


class AzureHost:
    """Azure DevOps's side of a conversation (`bot.forges.base.Host`)."""

    name: Literal["azure"] = "azure"
    after_push = AFTER_PUSH
    author = AUTHOR

    def __init__(self, change: AzureChange, *, reads: bool = True) -> None:
        """`reads`: False for a dry run without a token, which reads nothing."""
        self._change, self._reads = change, reads

    def review_range(self, trigger: Trigger) -> Range:
        """The run's head against the target branch as the pipeline fetched it (the review
        takes their merge base): what `analyze` reviews too, without the API."""
        assert trigger.head_sha  # the runner names it for a review
        return Range(f"refs/remotes/origin/{trigger.target_ref or 'main'}", trigger.head_sha,
                     trigger.open)

    def load(self) -> PullRequest:
        return self._change.pull()

    def moved_since(self, pr: PullRequest, trigger: Trigger) -> str | None:
        """Why `pr.head` may not be the head the comment was written against, or None.

        Decided by when Azure DevOps recorded the iteration (push) that made `pr.head` the
        head, against when it recorded the comment: never by commit dates, which whoever made
        the commit chose, nor by the run's variables, which whoever queues it sets."""
        found = self._change.of_head(pr.head)
        head = pr.head[:12]
        created = found.get("createdDate") if found else None
        if not isinstance(created, str):
            return (f"Azure DevOps lists no iteration with the head {head}, so it cannot be "
                    "told whether the command was written against it. Nothing was done.")
        when = _time(created)
        if trigger.comment_created_at is None or when >= _time(trigger.comment_created_at):
            return (f"The pull request's head moved to {head} after the comment was written "
                    f"(pushed {when:%Y-%m-%d %H:%M:%S} UTC). Nothing was done: check the new "
                    "head and comment again.")
        return None

    def head_ref(self, number: int) -> str:
        return head_refspec(number)

    def summary_body(self, *, keep: bool = False) -> str | None:
        return self._change.summary_body() if self._reads else None

    def role(self, permission: Permission) -> str:
        return role(permission)

    def labeled_by(self, label: str) -> Actor | None:
        """Azure DevOps records no author of a label (tag): never an actor to trust."""
        return None
