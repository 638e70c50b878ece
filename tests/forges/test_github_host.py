"""GitHub's conversation reads (`host.py`, through `GitHubChange`) against the validating
fake: the summary's state is read from the comment the bot's own account wrote, a personal
token's user too."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.forges.base import Draft
from bot.forges.github.api import Api, Settings
from bot.forges.github.change import GitHubChange
from bot.render.markdown import SUMMARY_MARKER, marker
from tests.forges.fakegithub import BOT_REST, FakeGitHub
from tests.forges.kept import kept_read_serves_one_load

SUMMARY = f"{SUMMARY_MARKER}\nthe state"


def host(fake: FakeGitHub) -> GitHubChange:
    settings = Settings(api_url=fake.api_url, graphql_url=fake.graphql_url, token="t0ken",
                        repository=f"{fake.owner}/{fake.repo}", number=fake.number, timeout=1.0,
                        write_spacing=0.0)
    return GitHubChange(settings, api=Api(settings))


@pytest.mark.parametrize("writer", [BOT_REST, "octo-maintainer"])
def test_the_summary_body_is_the_one_the_bot_s_account_wrote(
        fake: FakeGitHub, forge_for: Callable[[], GitHubChange], writer: str) -> None:
    fake.s.writer = writer
    forge = forge_for()
    state = forge.load()
    forge.post(state.head, "review", [Draft("k", "a.py", "x\n" + marker("k", "0"), line=3)])
    fake.comment_by("mallory", f"{SUMMARY_MARKER}\nnot the bot's")
    forge.summary(forge.load(), SUMMARY)
    assert host(fake).summary_body() == SUMMARY


def test_a_look_alike_summary_is_not_read(fake: FakeGitHub) -> None:
    fake.s.writer = "octo-maintainer"
    fake.comment_by("mallory", f"{SUMMARY_MARKER}\nnot the bot's")
    assert host(fake).summary_body() is None



def test_a_kept_read_serves_the_next_load_only_until_a_write(fake: FakeGitHub) -> None:
    forge = host(fake)
    kept_read_serves_one_load(
        forge, SUMMARY, fake.calls,
        lambda c: c.method == "GET" and c.path.endswith(f"/issues/{fake.number}/comments"),
        lambda head: forge.post(head, "review",
                                [Draft("k", "a.py", "x\n" + marker("k", "0"), line=3)]))
