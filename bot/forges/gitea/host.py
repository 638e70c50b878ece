"""What a conversation on a Gitea (or Forgejo) pull request needs besides the API, as data:
role names, what a push from a workflow starts, the apply commit's default author, where a
pull request's head is fetched from, and the git credentials for one push.

`GiteaHost` is Gitea's side of a conversation (`bot.forges.base.Host`), over the pull request's
connection (`change.GiteaChange`).
"""

from __future__ import annotations

import base64
from dataclasses import replace
from typing import Literal

from bot.forges.base import Actor, PullRequest, Range
from bot.forges.gitea import timeline
from bot.forges.gitea.change import GiteaChange
from bot.forges.gitea.limits import ACTIONS_USERS
from bot.forges.repository import Permission
from bot.model import Trigger

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
    if not token:
        return {}
    server = server_url.rstrip("/")
    basic = base64.b64encode(f"reviewbot:{token}".encode()).decode()
    return {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": f"http.{server}/.extraheader",
            "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}"}


class GiteaHost:
    """Gitea's (and Forgejo's) side of a conversation (`bot.forges.base.Host`)."""

    name: Literal["gitea"] = "gitea"
    after_push = AFTER_PUSH

    def __init__(self, change: GiteaChange, *, forgejo: bool = False, reads: bool = True,
                 labels: bool = False) -> None:
        """`reads`: False for a dry run without a token, which reads nothing. `labels`: a label
        event's run, which needs to know who added each label (`timeline.py`)."""
        self._change, self._reads, self._labels = change, reads, labels
        self.author = author(forgejo)

    def review_range(self, trigger: Trigger) -> Range:
        assert trigger.base_sha and trigger.head_sha  # a pull_request event names both
        return Range(trigger.base_sha, trigger.head_sha, trigger.open)

    def load(self) -> PullRequest:
        pull = self._change.pull()
        if not self._labels:
            return pull
        return replace(pull, labeled_by=timeline.read(self._change.api, pull.number))

    def moved_since(self, pr: PullRequest, trigger: Trigger) -> str | None:
        return self._change.moved_since(pr, trigger.comment_created_at)

    def head_ref(self, number: int) -> str:
        return head_refspec(number)

    def summary_body(self, *, keep: bool = False) -> str | None:
        return self._change.summary_body() if self._reads else None

    def role(self, permission: Permission) -> str:
        return role(permission)

    def labeled_by(self, label: str) -> Actor | None:
        """Who added `label`, from the issue timeline (Gitea's label event names no label)."""
        if not self._reads:
            return None
        login = timeline.read(self._change.api, self._change.number).get(label)
        return Actor(login, login.lower() in ACTIONS_USERS) if login else None
