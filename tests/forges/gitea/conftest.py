"""Fixtures for the Gitea tests: a real repository, the validating fake Gitea on it, and a
change and a repository side pointed at the fake."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from bot.forges.gitea.api import Api, Settings
from bot.forges.gitea.change import GiteaChange
from bot.forges.gitea.repository import GiteaRepository
from tests.conftest import GitRepo
from tests.forges.conftest import Sleeps
from tests.forges.fakegitea import API, REPOSITORY, FakeGitea

BASE = "a = 1\nb = 2\nc = 3\n"
HEAD = "a = 1\nnew = 0\nb = 2\nc = 3\n"  # line 2 added


@pytest.fixture
def fake(repo: GitRepo) -> Iterator[FakeGitea]:
    repo.commit({"m.py": BASE, "far.py": "".join(f"x{i} = {i}\n" for i in range(40))}, "base")
    repo.branch("feature")
    repo.commit({"m.py": HEAD}, "head")
    server = FakeGitea(repo.path)
    yield server
    # A request Gitea's description refuses fails the test, even if the bot coped with it.
    assert server.errors == []


def settings(token: str = "bot-token", target_url: str | None = None) -> Settings:
    return Settings(api_url=API, token=token, repository=REPOSITORY, number=1, timeout=1.0,
                    target_url=target_url)


@pytest.fixture
def api_for(fake: FakeGitea, sleeps: Sleeps) -> Callable[..., Api]:
    def make(token: str = "bot-token", target_url: str | None = None) -> Api:
        return Api(settings(token, target_url), sleep=sleeps, clock=lambda: 1000.0,
                   http=fake.transport)
    return make


@pytest.fixture
def change_for(api_for: Callable[..., Api]) -> Callable[..., GiteaChange]:
    def make(**kwargs: str | None) -> GiteaChange:
        api = api_for(**kwargs)
        return GiteaChange(api.settings, api=api)
    return make


@pytest.fixture
def repository(api_for: Callable[..., Api]) -> GiteaRepository:
    api = api_for()
    return GiteaRepository(api.settings, api=api)
