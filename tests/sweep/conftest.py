"""A repository with commits by several authors, the fake GitHub, and one sweep call."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.forges.github.api import Api, Settings
from bot.forges.github.commits import GitHubCommits
from bot.forges.github.repository import GitHubRepository
from bot.run.pipeline import ReviewOptions
from bot.sweep import flow
from tests.conftest import GitRepo
from tests.forges.conftest import Sleeps, sleeps  # noqa: F401 (a fixture)
from tests.forges.fakegithub import FakeGitHub

LABEL = "reviewbot:regressions"
CONFIG = '[tool.ruff.lint]\nselect = ["F"]\n'
APP = "import sys\n\n\ndef main():\n    return sys.argv\n"
UTIL = "LIMIT = 10\n\n\ndef clamp(value):\n    return min(value, LIMIT)\n"
OWNERS = "* @octo/maintainers\nutil.py @octo/util-team\n"


def commit_as(repo: GitRepo, author: str, files: dict[str, str | bytes | None], message: str) -> str:
    repo.write(files)
    repo.git("add", "-A")
    repo.git("-c", f"user.name={author}", "-c", f"user.email={author}@example.invalid",
             "commit", "-q", "--allow-empty", "-m", message)
    return repo.git("rev-parse", "HEAD")


@dataclass
class Sweeper:
    repo: GitRepo
    fake: FakeGitHub
    sleeps: Sleeps
    cache: Path

    def issues(self) -> GitHubRepository:
        return GitHubRepository(self.settings(), sleep=self.sleeps)

    def settings(self) -> Settings:
        return Settings(api_url=self.fake.api_url, graphql_url=self.fake.graphql_url,
                        token="t0ken", repository=f"{self.fake.owner}/{self.fake.repo}",
                        timeout=1.0, write_spacing=0.0)

    def __call__(self) -> flow.Swept:
        return self.at(self.repo.path)

    def at(self, checkout: Path) -> flow.Swept:
        """A sweep of `checkout`'s HEAD (the repository, or a clone of it)."""
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=checkout, check=True,
                              capture_output=True, text=True).stdout.strip()
        api = Api(self.settings(), sleep=self.sleeps)
        opts = flow.Options(checkout, "main", head, LABEL,
                            ReviewOptions(checkout, cache_dir=self.cache))
        return flow.sweep(opts, GitHubRepository(api.settings, api=api), GitHubCommits(api))

    def tracking(self) -> dict[int, dict[str, object]]:
        return {n: i for n, i in self.fake.s.issues.items() if LABEL in self.fake.s.labels[n]}

    def only(self) -> tuple[int, dict[str, object]]:
        found = self.tracking()
        assert len(found) == 1, found
        return next(iter(found.items()))


@pytest.fixture
def sweeper(repo: GitRepo, sleeps: Sleeps, tmp_path: Path) -> Iterator[Sweeper]:  # noqa: F811
    with FakeGitHub("0" * 40, {}) as fake:
        yield Sweeper(repo, fake, sleeps, tmp_path / "cache")
        assert fake.errors == []
