"""What a conversation on a Gitea (or Forgejo) pull request needs besides the API, as data:
role names, what a push from a workflow starts, the apply commit's default author, where a
pull request's head is fetched from, and the git credentials for one push.

`change.GiteaChange` answers the conversation's part of `bot.forges.base.Change` with them.
"""

from __future__ import annotations

from bot.forges.gitauth import header_env
from bot.forges.repository import Permission

# Gitea's own names (its collaborator access modes); it has no maintain nor triage level.
ROLES = {Permission.ADMIN: "owner or admin", Permission.MAINTAIN: "admin",
         Permission.WRITE: "write", Permission.TRIAGE: "read", Permission.READ: "read",
         Permission.NONE: "no access"}

# A push with the Actions token starts no workflow run: Gitea's Actions notifier ignores
# events whose doer is its Actions user, to avoid cycles (go-gitea/gitea#32615 is the same
# report against 1.26.4). The same keeps the bot's own comments from starting runs.
AFTER_PUSH = "a push made with the workflow's token starts no new workflow run."

# Who an Actions token commits as, by its own account (Gitea's and Forgejo's ActionsUser).
AUTHORS = {"gitea": "Gitea Actions <teabot@gitea.io>",
           "forgejo": "Forgejo Actions <noreply@forgejo.org>"}


def role(permission: Permission) -> str:
    """Gitea's name for an access level."""
    return ROLES[permission]


def author(forgejo: bool = False) -> str:
    """The apply commit's author when `apply: {author: …}` names none."""
    return AUTHORS["forgejo" if forgejo else "gitea"]


def head_refspec(number: int) -> str:
    """The ref Gitea mirrors a pull request's head to, forks included."""
    return f"refs/pull/{number}/head"


def push_env(token: str, server_url: str) -> dict[str, str]:
    """The token for one git process, as an HTTP header in its environment only (nothing is
    written to the checkout's git config, where the linters run). Gitea takes any user name
    with a token as the password."""
    return header_env("reviewbot", token, server_url)
