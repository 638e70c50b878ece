"""The sweep's `Pulls` on Azure DevOps: none. The git description cut for the bot has no
query for the pull request a commit came in with (`Pull Request Query` is not in it), so a
sweep attributes a finding to its commit only."""

from __future__ import annotations

from bot.forges.azure.api import Api
from bot.forges.base import PullRef


class AzurePulls:
    def __init__(self, api: Api) -> None:
        self._api = api

    def pull_of(self, sha: str) -> PullRef | None:
        """None: not read on Azure DevOps (see the module's docstring)."""
        return None
