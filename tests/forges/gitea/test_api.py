"""The Gitea client against the validating fake: its token header, paging by page/limit,
the server's version (Gitea's and Forgejo's), and errors that say what to change."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.errors import BotError, Exit
from bot.forges.gitea.api import Api, Settings, parse_version
from tests.forges.fakegitea import FakeGitea, Fault


def test_requests_carry_the_token_as_gitea_reads_it(fake: FakeGitea,
                                                    api_for: Callable[..., Api]) -> None:
    assert api_for().me()["login"] == "reviewbot"
    with pytest.raises(BotError) as caught:
        api_for(token="wrong").me()
    assert caught.value.code == Exit.FORGE and "GITEA_TOKEN" in caught.value.message


def test_a_token_that_may_not_say_whose_it_is_stops_the_run(
        fake: FakeGitea, api_for: Callable[..., Api]) -> None:
    fake.faults.append(Fault(r"GET /user", "403"))
    with pytest.raises(BotError) as caught:
        api_for().me()
    assert caught.value.code == Exit.FORGE and "read:user" in caught.value.message


def test_lists_are_read_page_by_page(fake: FakeGitea, api_for: Callable[..., Api]) -> None:
    fake.labels += [{"id": 10 + i, "name": f"l{i}", "color": "000000"} for i in range(120)]
    api = api_for()
    names = [x["name"] for x in api.list(f"{api.repo}/labels")]
    assert len(names) == 123 and names[-1] == "l119"
    pages = [c.query["page"] for c in fake.calls if c.path.endswith("/labels")]
    assert pages == [["1"], ["2"], ["3"]]
    assert all(c.query["limit"] == ["50"] for c in fake.calls if c.path.endswith("/labels"))


@pytest.mark.parametrize(("text", "parsed"), [
    ("1.22.6", ((1, 22, 6), False)), ("1.26.0+dev-12-gabc", ((1, 26, 0), False)),
    ("11.0.1+gitea-1.22.0", ((1, 22, 0), True)), ("development", ((0, 0, 0), False))])
def test_version_texts(text: str, parsed: tuple[tuple[int, int, int], bool]) -> None:
    assert parse_version(text) == parsed


def test_the_version_is_asked_once(fake: FakeGitea, api_for: Callable[..., Api]) -> None:
    fake.version = "7.0.0+gitea-1.21.11"
    api = api_for()
    assert (api.version(), api.forgejo, api.version()) == ((1, 21, 11), True, (1, 21, 11))
    assert sum(1 for c in fake.calls if c.path == "/version") == 1


def test_settings_that_cannot_work_are_usage_errors() -> None:
    for url, repo in (("https://gitea.test/api/v3", "o/r"), ("https://gitea.test/api/v1", "or")):
        with pytest.raises(BotError) as caught:
            Api(Settings(url, "t", repo))
        assert caught.value.code == Exit.USAGE
