"""The runners' connections pointed at a fake forge with short timeouts and no waits: what a
test patches instead of the connection code (`open_api`, `open_change`, `open_repository`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from bot.ci import github_actions, gitlab_ci
from bot.forges.github.api import Api, Settings
from bot.forges.gitlab.change import GitLabChange
from bot.forges.gitlab.change import Settings as GitLabSettings
from bot.forges.gitlab.repository import GitLabRepository, RepositorySettings


def github(monkeypatch: pytest.MonkeyPatch, sleep: Any, fake: Any = None,
           timeout: float = 1.0) -> None:
    """GitHub connections without write spacing; at `fake`'s URLs when given (else the
    environment's)."""
    def open_api(settings: Settings) -> Api:
        if fake is not None:
            settings = replace(settings, api_url=fake.api_url, graphql_url=fake.graphql_url)
        return Api(replace(settings, timeout=timeout, write_spacing=0.0), sleep=sleep)
    monkeypatch.setattr(github_actions, "open_api", open_api)


def gitlab(monkeypatch: pytest.MonkeyPatch, sleep: Any, timeout: float = 2.0) -> None:
    def open_change(settings: GitLabSettings) -> GitLabChange:
        return GitLabChange(replace(settings, timeout=timeout), sleep=sleep)

    def open_repository(settings: RepositorySettings, users: Any) -> GitLabRepository:
        return GitLabRepository(replace(settings, timeout=timeout), users=users, sleep=sleep)
    monkeypatch.setattr(gitlab_ci, "open_change", open_change)
    monkeypatch.setattr(gitlab_ci, "open_repository", open_repository)
