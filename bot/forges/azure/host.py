"""What a conversation on an Azure DevOps pull request needs besides the API, as data: role
names, what a push from a pipeline starts, the apply commit's default author, where a pull
request's head is fetched from, how its times read, and the git credentials for one push.

`change.AzureChange` answers the conversation's part of `bot.forges.base.Change` with them.
"""

from __future__ import annotations

import re
from datetime import datetime

from bot.forges.gitauth import header_env
from bot.forges.repository import Permission

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
    return header_env("reviewbot", token, server_url)


def moment(text: str) -> datetime:
    """A time as Azure DevOps writes it (up to seven digits of a second's fraction; six are
    read)."""
    return datetime.fromisoformat(re.sub(r"(\.\d{6})\d+", r"\1", text).replace("Z", "+00:00"))
