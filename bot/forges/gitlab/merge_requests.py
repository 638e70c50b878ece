"""The sweep's `Pulls` on GitLab: the merge request a commit came in with
(`GET .../repository/commits/:sha/merge_requests`)."""

from __future__ import annotations

from bot.forges.base import PullRef
from bot.forges.gitlab.repository import GitLabRepository


class MergeRequests:
    def __init__(self, repository: GitLabRepository) -> None:
        self._repository = repository

    def pull_of(self, sha: str) -> PullRef | None:
        found = self._repository.merge_request_of(sha)
        return PullRef(*found) if found else None
