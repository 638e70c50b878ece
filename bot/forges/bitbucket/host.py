"""What a conversation on a Bitbucket Cloud pull request needs besides the API, as data: role
names, what a push starts, the apply commit's default author, where a pull request's head is
fetched from, and the git credentials for one push.

`change.BitbucketChange` answers the conversation's part of `bot.forges.base.Change` with
them.
"""

from __future__ import annotations

from bot.forges.base import PullRequest
from bot.forges.gitauth import header_env
from bot.forges.repository import Permission
from bot.model import Trigger

# Bitbucket's own names (a repository permission is read, write or admin); it has no maintain
# nor triage level.
ROLES = {Permission.ADMIN: "admin", Permission.MAINTAIN: "admin", Permission.WRITE: "write",
         Permission.TRIAGE: "read", Permission.READ: "read", Permission.NONE: "no access"}

# A push made with an access token is a push like any other: Bitbucket starts the pull
# request's pipeline for it.
AFTER_PUSH = "the push starts the pull request's pipeline again."

# Who the apply commit is by when `apply: {author: …}` names none.
AUTHOR = "reviewbot <reviewbot@noreply.bitbucket.org>"


def role(permission: Permission) -> str:
    """Bitbucket's name for an access level."""
    return ROLES[permission]


def push_env(token: str, server_url: str) -> dict[str, str]:
    """The token for one git process, as an HTTP header in its environment only (nothing is
    written to the checkout's git config, where the linters run). Bitbucket takes an access
    token as the password of the user `x-token-auth`."""
    return header_env("x-token-auth", token, server_url)


def moved_since(pr: PullRequest, trigger: Trigger) -> str | None:
    """Bitbucket's API does not say when a head was pushed: the relay names the head the pull
    request had when the comment was made (its webhook's), and another head now refuses the
    commands. Without it nobody can tell, and they are refused too."""
    if not trigger.head_sha:
        return ("The pipeline does not name the head the comment was written against "
                "(REVIEWBOT_HEAD, set by the webhook relay), so it cannot be told whether "
                "the head moved since. Nothing was done.")
    if not pr.head.startswith(trigger.head_sha) and not trigger.head_sha.startswith(pr.head):
        return (f"The pull request's head moved to {pr.head[:12]} after the comment was "
                f"written (at {trigger.head_sha[:12]}). Nothing was done: check the new head "
                "and comment again.")
    return None
