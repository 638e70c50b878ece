"""The sweep's `Pulls` on Bitbucket Cloud: the pull requests a commit came in with
(`GET commit/{commit}/pullrequests`), the merged one first, then by number.

Bitbucket answers it only once its pull request commit links are indexed for the repository
(installed the first time someone follows "Go to pull request" from a commit's page): until
then it answers 404 (or 202 while indexing), and a regression names its commit and author
alone.
"""

from __future__ import annotations

from bot.errors import NotFound
from bot.forges.base import PullRef
from bot.forges.bitbucket.api import Api


class BitbucketPulls:
    def __init__(self, api: Api) -> None:
        self._api = api

    def pull_of(self, sha: str) -> PullRef | None:
        try:
            found = self._api.list(f"{self._api.repo}/commit/{sha}/pullrequests")
        except NotFound:  # not indexed (or no such commit): nobody can tell
            return None
        pulls = [p for p in found if isinstance(p.get("id"), int)]
        if not pulls:
            return None
        chosen = min(pulls, key=lambda p: (p.get("state") != "MERGED", int(p["id"])))
        author = chosen.get("author")
        login = author.get("nickname") if isinstance(author, dict) else None
        return PullRef(int(chosen["id"]), login if isinstance(login, str) else None,
                       chosen.get("state") == "MERGED")
