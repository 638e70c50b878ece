"""The pull requests that brought a commit (`GET /repos/{o}/{r}/commits/{sha}/pulls`), for
the sweep's attribution: merged pull requests first, then by number."""

from __future__ import annotations

from typing import Any

from bot.errors import NotFound
from bot.forges.base import PullRef
from bot.forges.github.api import Api


class GitHubCommits:
    def __init__(self, api: Api) -> None:
        self._api = api

    def pull_of(self, sha: str) -> PullRef | None:
        """The pull request a commit came in with, or None (a push straight to the branch)."""
        try:
            raw = self._api.list(f"{self._api.url}/commits/{sha}/pulls", max_pages=1)
        except NotFound:  # a commit GitHub does not have (never pushed)
            return None
        pulls = sorted((_pull(item) for item in raw if isinstance(item, dict) and "number" in item),
                       key=lambda p: (not p.merged, p.number))
        return pulls[0] if pulls else None


def _pull(raw: dict[str, Any]) -> PullRef:
    user = raw.get("user") if isinstance(raw.get("user"), dict) else {}
    login = user.get("login") if isinstance(user, dict) else None
    return PullRef(int(raw["number"]), str(login) if login else None, bool(raw.get("merged_at")))
