"""Azure DevOps's pull request side (`bot.forges.azure.change`) against the validating fake
Azure DevOps on a real repository: threads on the head lines with their iteration context,
found again by property and marker, fixed natively, the sticky summary thread, and the gate
as a pull request status."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from bot.errors import HTTPError
from bot.forges.azure.api import Api, Settings
from bot.forges.azure.change import AzureChange
from bot.forges.base import Draft, StatusReport
from bot.render.markdown import SUMMARY_MARKER
from tests.conftest import GitRepo
from tests.forges.conftest import Sleeps
from tests.forges.fakeazure import BOT, HUMAN, ORGANIZATION, PROJECT, REPOSITORY_ID, SERVER, FakeAzure
from tests.forges.kept import kept_read_serves_one_load

BASE = "a = 1\nb = 2\nc = 3\n"
HEAD = "a = 1\nnew = 0\nb = 2\nc = 3\n"  # line 2 added


def marked(fingerprint: str, text: str = "F401 unused") -> str:
    return f"{text}\n<!-- reviewbot:fp={fingerprint} h={fingerprint.encode().hex()} -->"


@pytest.fixture
def fake(repo: GitRepo) -> Iterator[FakeAzure]:
    repo.commit({"m.py": BASE, "far.py": "".join(f"x{i} = {i}\n" for i in range(40))}, "base")
    repo.branch("feature")
    repo.commit({"m.py": HEAD}, "head")
    server = FakeAzure(repo.path)
    yield server
    # A request Azure DevOps's description refuses fails the test, even if the bot coped.
    assert server.errors == [], "\n".join(server.errors)


def settings(token: str = "bot-token") -> Settings:
    return Settings(f"{SERVER}/{ORGANIZATION}/", PROJECT, REPOSITORY_ID, token, number=1,
                    timeout=1.0, target_url="https://dev.azure.test/octo/demo/_build/9")


@pytest.fixture
def change_for(fake: FakeAzure, sleeps: Sleeps) -> Callable[..., AzureChange]:
    def make(token: str = "bot-token") -> AzureChange:
        api = Api(settings(token), sleep=sleeps, clock=lambda: 1000.0, http=fake.transport)
        return AzureChange(api.settings, api=api)
    return make


def test_marker_format_is_the_renderers() -> None:
    from bot.render.markdown import parse_marker
    found = parse_marker(marked("abc"))
    assert found is not None and found.fingerprint == "abc"


def test_one_thread_per_draft_on_its_lines_with_the_iteration(
        fake: FakeAzure, change_for: Callable[..., AzureChange]) -> None:
    change = change_for()
    assert change.diff_lines() == {"m.py": frozenset({1, 2, 3, 4})}
    rejected = change.post(fake.head_sha, "", [
        Draft("k1", "m.py", marked("k1"), line=2),
        Draft("k2", "m.py", marked("k2"), line=4, start_line=3),
        Draft("k3", "m.py", marked("k3")),
        Draft("k4", "far.py", marked("k4"), line=1),
        Draft("k5", "m.py", marked("k5"), line=9)])
    assert [r.draft.key for r in rejected] == ["k4", "k5"]
    one, two, three = fake.threads
    assert one["threadContext"] == {"filePath": "/m.py", "rightFileStart": {"line": 2, "offset": 1},
                                    "rightFileEnd": {"line": 2, "offset": 8}}
    assert two["threadContext"]["rightFileStart"]["line"] == 3
    assert two["threadContext"]["rightFileEnd"] == {"line": 4, "offset": 6}
    assert three["threadContext"] == {"filePath": "/m.py"}
    assert one["pullRequestThreadContext"] == {
        "changeTrackingId": 1, "iterationContext": {"firstComparingIteration": 1,
                                                    "secondComparingIteration": 1}}
    assert one["properties"] == {"reviewbot.fingerprint": "k1"}
    state = change_for().load()
    assert [(p.key, p.path, p.resolved, p.replied) for p in state.comments] == [
        ("k1", "m.py", False, False), ("k2", "m.py", False, False), ("k3", "m.py", False, False)]


def test_fixed_is_the_native_status_and_a_reply_is_seen(
        fake: FakeAzure, change_for: Callable[..., AzureChange]) -> None:
    change = change_for()
    change.post(fake.head_sha, "", [Draft("k1", "m.py", marked("k1"), line=2)])
    [posted] = change.load().comments
    fake.reply(int(posted.thread or 0), "I will fix it")
    change = change_for()
    [posted] = change.load().comments
    assert posted.replied and not posted.resolved
    change.resolve(posted, True)
    [thread] = fake.threads
    assert thread["status"] == "fixed" and "reviewbot.fixed" in thread["properties"]
    assert f"**Fixed** in `{fake.head_sha[:12]}`" in thread["comments"][0]["content"]
    assert thread["comments"][1]["content"] == "I will fix it"  # the reply is kept
    [posted] = change_for().load().comments
    assert posted.resolved and posted.resolved_by_us
    again = change_for()
    again.load()
    again.resolve(posted, False)
    assert thread["status"] == "active" and "reviewbot.fixed" not in thread["properties"]
    assert "Fixed" not in thread["comments"][0]["content"]


def test_a_thread_a_person_closed_is_not_reopened(
        fake: FakeAzure, change_for: Callable[..., AzureChange]) -> None:
    change = change_for()
    change.post(fake.head_sha, "", [Draft("k1", "m.py", marked("k1"), line=2)])
    fake.threads[0]["status"] = "wontFix"
    [posted] = change_for().load().comments
    assert posted.resolved and not posted.resolved_by_us


def test_the_summary_is_one_thread_edited_in_place_and_names_the_bot(
        fake: FakeAzure, change_for: Callable[..., AzureChange]) -> None:
    change = change_for()
    state = change.load()
    change.summary(state, f"one {SUMMARY_MARKER}")
    change = change_for()
    state = change.load()
    assert state.summary_id == str(fake.threads[0]["id"])
    change.summary(state, f"two {SUMMARY_MARKER}")
    [summary] = fake.threads
    assert summary["comments"][0]["content"] == f"two {SUMMARY_MARKER}"
    assert "threadContext" not in summary
    # A thread with our property whose comment someone else wrote is not ours.
    alice = change_for("alice-token")
    alice.post(fake.head_sha, "", [Draft("k9", "m.py", marked("k9"), line=2)])
    change_for().post(fake.head_sha, "", [Draft("k1", "m.py", marked("k1"), line=2)])
    assert [p.key for p in change_for().load().comments] == ["k1"]
    assert fake.threads[1]["comments"][0]["author"] is HUMAN
    assert fake.threads[2]["comments"][0]["author"] is BOT


def test_a_kept_read_serves_the_next_load_only_until_a_write(
        fake: FakeAzure, change_for: Callable[..., AzureChange]) -> None:
    change = change_for()
    kept_read_serves_one_load(
        change, f"one {SUMMARY_MARKER}", fake.calls,
        lambda c: c.method == "GET" and c.path.endswith("/pullRequests/1/threads"),
        lambda head: change.post(head, "", [Draft("k1", "m.py", marked("k1"), line=2)]))


def test_the_gate_is_a_status_with_the_reviewbot_genre_sent_once(
        fake: FakeAzure, change_for: Callable[..., AzureChange]) -> None:
    report = StatusReport("reviewbot", fake.head_sha, "failure", "2 findings", "")
    assert change_for().check(report)
    assert change_for().check(report)  # the same verdict: nothing sent
    [status] = fake.statuses
    assert status["context"] == {"name": "reviewbot", "genre": "reviewbot"}
    assert status["state"] == "failed" and status["iterationId"] == 1
    assert status["targetUrl"].endswith("/_build/9")
    fake.push()
    assert change_for().check(report)
    assert [s["iterationId"] for s in fake.statuses] == [1, 2]


def test_a_duplicate_is_closed_and_stops_being_ours(
        fake: FakeAzure, change_for: Callable[..., AzureChange]) -> None:
    change = change_for()
    change.post(fake.head_sha, "", [Draft("k1", "m.py", marked("k1"), line=2)] * 2)
    change = change_for()
    _, second = change.load().comments
    change.delete(second)
    assert fake.threads[1]["status"] == "closed"
    assert "reviewbot.fingerprint" not in fake.threads[1]["properties"]
    assert [p.key for p in change_for().load().comments] == ["k1"]


def test_an_unknown_token_is_refused_with_a_hint(
        fake: FakeAzure, change_for: Callable[..., AzureChange]) -> None:
    with pytest.raises(HTTPError, match=r"sign-in page.*System\.AccessToken"):
        change_for("nobody").load()


def test_before_a_summary_a_persons_thread_with_our_property_is_not_ours(
        fake: FakeAzure, change_for: Callable[..., AzureChange]) -> None:
    change_for("alice-token").post(fake.head_sha, "", [Draft("k9", "m.py", marked("k9"), line=2)])
    change_for().post(fake.head_sha, "", [Draft("k1", "m.py", marked("k1"), line=2)])
    assert [p.key for p in change_for().load().comments] == ["k1"]
