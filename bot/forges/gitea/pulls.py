"""The sweep's `Pulls` on Gitea: the pull request a commit was merged with
(`GET /repos/{owner}/{repo}/commits/{sha}/pull`)."""

from __future__ import annotations

from typing import Any

from bot.errors import NotFound
from bot.forges.base import PullRef
from bot.forges.gitea.api import Api


class GiteaPulls:
    def __init__(self, api: Api) -> None:
        self._api = api

    def pull_of(self, sha: str) -> PullRef | None:
        """The merged pull request of a commit, or None (a push straight to the branch; Gitea
        names only the pull request that merged it)."""
        try:
            data = self._api.get(f"{self._api.repo}/commits/{sha}/pull")
        except NotFound:
            return None
        if not isinstance(data, dict) or not isinstance(data.get("number"), int):
            return None
        return PullRef(int(data["number"]), _login(data.get("user")), bool(data.get("merged")))


def _login(user: Any) -> str | None:
    login = user.get("login") if isinstance(user, dict) else None
    return login if isinstance(login, str) else None
