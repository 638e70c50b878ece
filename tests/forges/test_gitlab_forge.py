"""The GitLab forge against the fake GitLab: positions GitLab refuses, retries it must own
(5xx after effect, 429 with Retry-After, timeouts), quick actions, the commit status."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.errors import Uncertain
from bot.forges.base import Draft, StatusReport
from bot.forges.gitlab import change as gitlab
from bot.forges.gitlab.notes import defuse
from tests.conftest import GitRepo
from tests.forges.conftest import Sleeps
from tests.forges.fakegitlab import LINE_CODE, FakeGitLab, Fault, quick_actions

BASE = "a = 1\nb = 2\nc = 3\n"
HEAD = "a = 1\nnew = 0\nb = 2\nc = 3\n"  # line 2 added; head 3 is base 2, head 4 is base 3


@pytest.fixture
def fake(repo: GitRepo) -> Iterator[FakeGitLab]:
    repo.commit({"m.py": BASE}, "base")
    repo.branch("feature")
    repo.commit({"m.py": HEAD}, "head")
    with FakeGitLab(repo.path) as server:
        yield server
        assert server.errors == []


def forge(fake: FakeGitLab, sleeps: Sleeps) -> gitlab.GitLabChange:
    return gitlab.GitLabChange(gitlab.Settings(api_url=fake.api_url, token="glpat-bot",
                                              project="42", iid=3, timeout=1.0), sleep=sleeps)


def note(key: str, line: int | None, old_line: int | None = None) -> Draft:
    return Draft(key, "m.py", f"finding {key}\n<!-- reviewbot:fp={key} h=0 -->", line, None,
                 "m.py", old_line)


def test_positions_are_placed_as_gitlab_places_them(fake: FakeGitLab, sleeps: Sleeps) -> None:
    f = forge(fake, sleeps)
    head = f.load().head
    rejected = f.post(head, "", [note("added", 2), note("context", 3, 2),
                                 note("wrong-pair", 3, 3), note("added-with-old", 2, 1),
                                 note("file", None)])
    assert [(r.draft.key, r.reason.split(":", 1)[1].strip()) for r in rejected] == [
        ("wrong-pair", LINE_CODE), ("added-with-old", LINE_CODE)]
    placed = {d["notes"][0]["body"].split()[1]: d["notes"][0]["position"] for d in fake.discussions}
    assert placed["added"]["new_line"] == 2 and "old_line" not in placed["added"]
    assert (placed["context"]["old_line"], placed["context"]["new_line"]) == (2, 3)
    assert placed["file"]["position_type"] == "file"
    assert {k for k, _ in [(p["base_sha"], 0) for p in placed.values()]} == {
        fake.version["base_commit_sha"]}
    assert f.diff_lines() == {"m.py": frozenset({1, 2, 3, 4})}


def test_a_5xx_after_the_effect_raises_uncertain_and_is_not_sent_again(
        fake: FakeGitLab, sleeps: Sleeps) -> None:
    fake.faults.append(Fault("POST /discussions$", "502-after"))
    f = forge(fake, sleeps)
    with pytest.raises(Uncertain):
        f.post(f.load().head, "", [note("one", 2)])
    assert len(fake.discussions) == 1 and [p.key for p in f.load().comments] == ["one"]
    assert sum(1 for c in fake.calls if c.method == "POST") == 1


def test_a_timeout_on_a_write_is_uncertain_and_on_a_read_is_sent_again(
        fake: FakeGitLab, sleeps: Sleeps) -> None:
    f = forge(fake, sleeps)
    fake.faults.append(Fault("GET /discussions$", "timeout"))
    state = f.load()
    assert state.comments == () and sleeps == [1.0]
    fake.faults.append(Fault("POST /notes$", "timeout-after"))
    f.summary(state, "<!-- reviewbot:summary -->\nall good")
    # The POST that timed out did create it: found on the re-read, not created twice.
    assert len(fake.summaries()) == 1
    assert sum(1 for c in fake.calls if c.method == "POST") == 1


def test_a_429_waits_as_gitlab_says_then_sends_again(fake: FakeGitLab, sleeps: Sleeps) -> None:
    fake.faults.append(Fault("POST /discussions$", "429", times=2))
    f = forge(fake, sleeps)
    assert f.post(f.load().head, "", [note("one", 2)]) == []
    assert sleeps == [7.0, 7.0] and len(fake.discussions) == 1


def test_idempotent_writes_are_sent_again_after_a_5xx(fake: FakeGitLab, sleeps: Sleeps) -> None:
    f = forge(fake, sleeps)
    state = f.load()
    f.summary(state, "<!-- reviewbot:summary -->\nfirst")
    fake.faults.append(Fault("PUT /notes/", "502"))
    f.summary(f.load(), "<!-- reviewbot:summary -->\nsecond")
    [summary] = fake.summaries()
    assert summary["body"].endswith("second") and sleeps == [1.0]


def test_the_commit_status_is_final_and_a_403_falls_back(fake: FakeGitLab, sleeps: Sleeps) -> None:
    f = forge(fake, sleeps)
    head = f.load().head
    assert f.check(StatusReport("reviewbot", head, "failure", "failing: 2 new", "body"))
    assert f.check(StatusReport("reviewbot", head, "neutral", "x" * 400, "body"))
    assert [(s["status"], len(s["description"])) for s in fake.statuses] == [
        ("failed", len("failing: 2 new")), ("success", 255)]
    fake.faults.append(Fault("POST /statuses/", "403"))
    assert not f.check(StatusReport("reviewbot", head, "success", "passing", "body"))


@pytest.mark.parametrize("body", [
    "/close", "  /merge now", "text\n/label ~bug\nmore", "> quoted\n/assign @me",
    "```\n/ok in code\n```\n/unlabel ~x", "~~~~\n```\n/ok\n```\n~~~~\n/close",
])
def test_no_line_runs_as_a_quick_action(body: str) -> None:
    assert quick_actions(body)  # the fake sees the hazard in the raw text
    defused = defuse(body)
    assert quick_actions(defused) == []
    assert defused.replace("&#47;", "/") == body  # it reads the same


def test_code_blocks_are_left_as_they_are() -> None:
    body = "```suggestion:-0+0\n/usr/bin/env\n```"
    assert defuse(body) == body


def test_lists_are_read_to_the_last_page(fake: FakeGitLab, sleeps: Sleeps) -> None:
    f = forge(fake, sleeps)
    head = f.load().head
    f.post(head, "", [note(f"k{n}", 2) for n in range(130)])
    assert len(f.load().comments) == 130
    pages = [c for c in fake.calls if c.path.endswith("/discussions") and c.method == "GET"]
    assert [c.params.get("page", "1") for c in pages[-2:]] == ["1", "2"]


def _discussion_reads(fake: FakeGitLab) -> int:
    return sum(1 for c in fake.calls if c.method == "GET" and c.path.endswith("/discussions"))


def test_a_kept_read_serves_the_next_load_only_until_a_write(fake: FakeGitLab,
                                                             sleeps: Sleeps) -> None:
    f = forge(fake, sleeps)
    head = f.load().head
    f.post(head, "", [note("one", 2)])
    fake.calls.clear()
    assert f.summary_body(keep=True) is None
    [posted] = f.load().comments  # the kept read: no request
    assert posted.key == "one" and _discussion_reads(fake) == 1
    f.load()  # kept once only
    assert _discussion_reads(fake) == 2
    f.summary_body(keep=True)
    f.post(head, "", [note("two", 2)])  # a write: the kept read is history
    assert len(f.load().comments) == 2 and _discussion_reads(fake) == 4


def test_recorded_writes_are_not_sent(fake: FakeGitLab, sleeps: Sleeps) -> None:
    f = forge(fake, sleeps)
    recorded = f.record_writes().requests
    state = f.load()
    assert f.post(state.head, "", [note("one", 2)]) == []
    f.summary(state, "/close\nsummary <!-- reviewbot:summary -->")
    f.check(StatusReport("reviewbot", state.head, "failure", "failing", ""))
    assert [c for c in fake.calls if c.method != "GET"] == []
    assert [(r["method"], r["path"].rsplit("/", 1)[-1]) for r in recorded] == [
        ("POST", "discussions"), ("POST", "notes"), ("POST", state.head)]
    assert recorded[0]["body"]["position"]["new_line"] == 2
    assert recorded[1]["body"]["body"].startswith("&#47;close")  # defused as it would be sent
    assert recorded[2]["body"]["state"] == "failed"
