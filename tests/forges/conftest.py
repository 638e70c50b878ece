"""Fixtures for forge tests: a validating fake GitHub and a forge pointed at it."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from bot.forges.github.change import GitHubChange, Settings
from tests.forges.fakegithub import FakeGitHub

HEAD = "a" * 40


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub(HEAD, {"a.py": set(range(1, 30))}) as server:
        yield server
        # A request GitHub's description refuses fails the test, even if the bot coped with it.
        assert server.errors == []


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


@pytest.fixture
def forge_for(fake: FakeGitHub, sleeps: Sleeps) -> Callable[[], GitHubChange]:
    def make() -> GitHubChange:
        return GitHubChange(Settings(api_url=fake.api_url, graphql_url=fake.graphql_url,
                                    token="t0ken", repository=f"{fake.owner}/{fake.repo}",
                                    number=fake.number, timeout=1.0, write_spacing=0.0),
                           sleep=sleeps)
    return make
