"""`GiteaChange` against the validating fake Gitea on a real repository: the publish flow run
three times, drafts checked against Gitea's diff, retries it must own, duplicates, the summary
and the commit status, the head's arrival, the dry run."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.errors import BotError, Uncertain
from bot.forges.base import Change, Draft, StatusReport
from bot.forges.gitea.change import FIXED_MARKER, GiteaChange
from bot.model import ReviewResult, Trigger
from bot.publishing.gate import Gate
from bot.publishing.policy import Policy
from bot.publishing.sync import Synced
from bot.render.markdown import SUMMARY_MARKER
from tests.conftest import GitRepo
from tests.forges.builders import change, finding, result, texts, verdict
from tests.forges.conftest import Sleeps
from tests.forges.fakegitea import BOT, HUMAN, FakeGitea, Fault
from tests.forges.kept import kept_read_serves_one_load
from tests.publishing.shortcut import review

V1 = "import os\n\ndef f():\n    x = 1\n    y = 2\n    return 0\n"
# Two lines pushed on top, `x` removed: A is fixed, B moves from line 5 to line 6.
V2 = "# one\n# two\nimport os\n\ndef f():\n    y = 2\n    return 0\n"


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def build(head: str, text: str) -> ReviewResult:
    found = []
    if "x = 1" in text:
        n = line_of(text, "x = 1")
        found.append(verdict(finding("a.py", n, fix=((n, 1, n + 1, 1, ""),)), "fp-a"))
    found.append(verdict(finding("a.py", line_of(text, "y = 2"), rule="F842"), "fp-b"))
    return result(head, found, [change("a.py", range(1, len(text.splitlines()) + 1))])


def run(forge: Change, res: ReviewResult, repo: GitRepo, sleeps: Sleeps) -> Synced:
    return review(forge, res, texts(repo.path, res.head, ["a.py"]), Policy(),
                  Gate(blocking=1, fail_level="error"), settle=0, sleep=sleeps)


def by_fp(fake: FakeGitea) -> dict[str, list[dict[str, object]]]:
    out: dict[str, list[dict[str, object]]] = {}
    for c in fake.bot_comments():
        if "reviewbot:fp=" in str(c["body"]):
            out.setdefault(str(c["body"]).split("reviewbot:fp=")[1].split(" ")[0], []).append(c)
    return out


@pytest.mark.parametrize("version", ["1.22.6", "1.26.0", "11.0.1+gitea-1.22.0"])
def test_three_runs_mark_the_fix_keep_the_reply_and_then_write_nothing(
        repo: GitRepo, fake: FakeGitea, change_for: Callable[..., GiteaChange], sleeps: Sleeps,
        version: str) -> None:
    fake.version = version
    repo.commit({"a.py": V1}, "v1")
    fake.push()
    first = run(change_for(), build(fake.head_sha, V1), repo, sleeps)
    assert first.status == "published"
    comments = by_fp(fake)
    assert sorted(comments) == ["fp-a", "fp-b"]
    assert len(fake.reviews) == 1  # one review holding both comments
    assert fake.invisible() == []
    assert [c.get("position") for c in fake.bot_comments()] == [4, 5]
    assert "```diff\n```" in str(comments["fp-a"][0]["body"])  # the fix deletes the line
    [summary] = fake.summaries()
    reply = fake.reply(int(comments["fp-a"][0]["id"]), "why is this wrong?")  # type: ignore[call-overload]

    repo.commit({"a.py": V2}, "v2")
    fake.push("2026-01-01T00:05:00Z")
    second = run(change_for(), build(fake.head_sha, V2), repo, sleeps)
    assert second.status == "published"
    comments = by_fp(fake)
    assert {k: len(v) for k, v in comments.items()} == {"fp-a": 1, "fp-b": 1}  # none twice
    a = comments["fp-a"][0]
    if fake.resolvable:  # Gitea 1.26: the conversation is resolved by the bot
        assert a["resolver"] == BOT and FIXED_MARKER not in str(a["body"])
    else:  # older Gitea, Forgejo: the comment says so
        assert FIXED_MARKER in str(a["body"]) and f"`{fake.head_sha[:12]}`" in str(a["body"])
        assert "resolver" not in a
    assert reply in fake.comments and reply["body"] == "why is this wrong?"
    assert [s["id"] for s in fake.summaries()] == [summary["id"]]  # edited in place
    assert len(fake.reviews) == 1  # the reply sits in our review; nothing new posted

    fake.calls.clear()
    third = run(change_for(), build(fake.head_sha, V2), repo, sleeps)
    assert third.status == "published"
    assert fake.writes() == []  # nothing changed: nothing written
    assert {k: len(v) for k, v in by_fp(fake).items()} == {"fp-a": 1, "fp-b": 1}


def test_a_fixed_finding_that_comes_back_is_reopened(
        repo: GitRepo, fake: FakeGitea, change_for: Callable[..., GiteaChange],
        sleeps: Sleeps) -> None:
    repo.commit({"a.py": V1}, "v1")
    fake.push()
    run(change_for(), build(fake.head_sha, V1), repo, sleeps)
    without_a = result(fake.head_sha, [verdict(finding("a.py", 5, rule="F842"), "fp-b")],
                       [change("a.py", range(1, 7))])
    run(change_for(), without_a, repo, sleeps)
    assert FIXED_MARKER in str(by_fp(fake)["fp-a"][0]["body"])
    run(change_for(), build(fake.head_sha, V1), repo, sleeps)
    assert FIXED_MARKER not in str(by_fp(fake)["fp-a"][0]["body"])


def draft(key: str, line: int | None, path: str = "m.py") -> Draft:
    return Draft(key, path, f"finding {key}\n<!-- reviewbot:fp={key} h=0 -->", line)


def test_drafts_off_gitea_s_diff_are_refused_here_and_never_sent(
        fake: FakeGitea, change_for: Callable[..., GiteaChange]) -> None:
    forge = change_for()
    head = forge.load().head
    assert forge.diff_lines() == {"m.py": frozenset({1, 2, 3, 4})}
    rejected = forge.post(head, "", [draft("in", 2), draft("far", 30, "far.py"),
                                     draft("after", 9), draft("file", None)])
    assert [(r.draft.key, r.reason) for r in rejected] == [
        ("far", "line 30 of far.py is outside Gitea's diff of the pull request"),
        ("after", "line 9 of m.py is outside Gitea's diff of the pull request"),
        ("file", "Gitea has no file-level review comments")]
    assert [c["path"] for c in fake.bot_comments()] == ["m.py"]
    assert fake.invisible() == []
    [post] = [c for c in fake.writes()]
    assert post.body["comments"] == [{"path": "m.py", "body": draft("in", 2).body,
                                      "new_position": 2}]


def test_nothing_to_post_sends_nothing(fake: FakeGitea,
                                       change_for: Callable[..., GiteaChange]) -> None:
    forge = change_for()
    assert forge.post(forge.load().head, "", [draft("far", 30, "far.py")])
    assert fake.writes() == []


def test_a_5xx_after_the_effect_is_uncertain_and_not_sent_again(
        fake: FakeGitea, change_for: Callable[..., GiteaChange], sleeps: Sleeps) -> None:
    fake.faults.append(Fault(r"POST .*/pulls/1/reviews", "500-after"))
    forge = change_for()
    head = forge.load().head
    with pytest.raises(Uncertain):
        forge.post(head, "", [draft("in", 2)])
    assert len(fake.reviews) == 1 and sleeps == []  # it did take effect; sent once


def test_a_timeout_on_a_read_is_sent_again_and_a_429_waits_as_told(
        fake: FakeGitea, change_for: Callable[..., GiteaChange], sleeps: Sleeps) -> None:
    fake.faults += [Fault(r"GET .*/pulls/1", "timeout-before"),
                    Fault(r"POST .*/pulls/1/reviews", "429")]
    forge = change_for()
    head = forge.load().head
    assert forge.post(head, "", [draft("in", 2)]) == []
    assert sleeps == [1.0, 3.0]  # the read's backoff, then Retry-After
    assert len(fake.reviews) == 1


def test_a_duplicate_review_is_deleted_whole_once_all_its_comments_are_duplicates(
        fake: FakeGitea, change_for: Callable[..., GiteaChange]) -> None:
    forge = change_for()
    head = forge.load().head
    forge.post(head, "", [draft("one", 2), draft("two", 3)])
    forge.post(head, "", [draft("one", 2), draft("two", 3)])  # as if a lost answer was re-sent
    state = forge.load()
    later = [p for p in state.comments if int(p.id) > int(state.comments[1].id)]
    assert [p.key for p in later] == ["one", "two"]
    forge.delete(later[0])
    assert len(fake.reviews) == 2  # its review still holds `two`: only the marker goes
    assert "reviewbot:fp" not in next(c["body"] for c in fake.comments if c["id"] == int(later[0].id))
    forge.delete(later[1])
    assert len(fake.reviews) == 1 and len(fake.bot_comments()) == 2
    assert [p.key for p in forge.load().comments] == ["one", "two"]


def test_a_review_deleted_while_being_read_is_skipped(
        fake: FakeGitea, change_for: Callable[..., GiteaChange]) -> None:
    forge = change_for()
    forge.post(forge.load().head, "", [draft("one", 2)])
    forge.post(forge.load().head, "", [draft("two", 3)])
    fake.faults.append(Fault(r"GET .*/reviews/\d+/comments", "404"))
    assert [p.key for p in forge.load().comments] == ["two"]


def test_a_duplicate_review_someone_replied_in_is_never_deleted(
        fake: FakeGitea, change_for: Callable[..., GiteaChange]) -> None:
    forge = change_for()
    head = forge.load().head
    forge.post(head, "", [draft("one", 2), draft("two", 3)])
    forge.post(head, "", [draft("one", 2), draft("two", 3)])
    state = forge.load()
    later = [p for p in state.comments if int(p.id) > int(state.comments[1].id)]
    reply = fake.reply(int(later[1].id), "this one I answer")
    for comment in forge.load().comments[2:]:
        forge.delete(comment)  # what the publish flow would never ask: one was replied to
    assert len(fake.reviews) == 2 and reply in fake.comments
    assert [p.key for p in forge.load().comments] == ["one", "two"]


def test_edit_changes_the_review_comment_in_place(
        fake: FakeGitea, change_for: Callable[..., GiteaChange]) -> None:
    forge = change_for()
    forge.post(forge.load().head, "", [draft("one", 2)])
    [posted] = forge.load().comments
    forge.edit(posted, "new text\n<!-- reviewbot:fp=one h=1 -->")
    [comment] = fake.bot_comments()
    assert comment["body"].startswith("new text") and forge.load().comments[0].digest == "1"


def test_the_summary_is_only_ever_the_bot_s_own(
        fake: FakeGitea, change_for: Callable[..., GiteaChange]) -> None:
    spoof = {"id": 9, "issue": 1, "user": HUMAN, "body": f"{SUMMARY_MARKER}\nall good",
             "created_at": "2026-01-01T00:00:00Z"}
    fake.issue_comments.append(spoof)
    forge = change_for()
    state = forge.load()
    assert state.summary_id is None and forge.summary_body() is None
    forge.summary(state, f"{SUMMARY_MARKER}\nfirst")
    forge.summary(forge.load(), f"{SUMMARY_MARKER}\nsecond")
    forge.summary(forge.load(), f"{SUMMARY_MARKER}\nsecond")
    ours = [c for c in fake.summaries() if c["user"] == BOT]
    assert len(ours) == 1 and ours[0]["body"].endswith("second") and spoof["body"].endswith("good")
    assert forge.summary_body() == f"{SUMMARY_MARKER}\nsecond"
    assert [c.method for c in fake.writes()] == ["POST", "PATCH"]


def test_a_summary_post_that_took_effect_is_found_not_repeated(
        fake: FakeGitea, change_for: Callable[..., GiteaChange]) -> None:
    fake.faults.append(Fault(r"POST .*/issues/1/comments", "500-after"))
    forge = change_for()
    forge.summary(forge.load(), f"{SUMMARY_MARKER}\nbody")
    assert len(fake.summaries()) == 1


def test_a_kept_read_serves_the_next_load_only_until_a_write(
        fake: FakeGitea, change_for: Callable[..., GiteaChange]) -> None:
    forge = change_for()
    kept_read_serves_one_load(
        forge, f"{SUMMARY_MARKER}\nbody", fake.calls,
        lambda c: c.method == "GET" and c.path.endswith(f"/issues/{fake.number}/comments"),
        lambda head: forge.post(head, "review", [draft("k", 2)]))


def test_the_commit_status_is_set_once_per_verdict(
        fake: FakeGitea, change_for: Callable[..., GiteaChange]) -> None:
    forge = change_for(target_url="https://gitea.test/octo/demo/actions/runs/7")
    report = StatusReport("reviewbot", fake.head_sha, "failure", "2 findings " + "x" * 400, "s")
    assert forge.check(report) and forge.check(report)
    [status] = fake.statuses
    assert (status["status"], status["context"], len(status["description"])) == (
        "failure", "reviewbot", 255)
    assert status["target_url"].endswith("/runs/7")
    assert forge.check(StatusReport("reviewbot", fake.head_sha, "neutral", "ok", "s"))
    assert [s["status"] for s in fake.statuses] == ["failure", "success"]


def test_a_token_that_may_not_set_statuses_falls_back(
        fake: FakeGitea, change_for: Callable[..., GiteaChange]) -> None:
    fake.faults.append(Fault(r"POST .*/statuses/.*", "403"))
    assert not change_for().check(StatusReport("reviewbot", fake.head_sha, "success", "ok", "s"))


def written(at: str) -> Trigger:
    """A comment's trigger, written at `at`."""
    return Trigger("gitea", "issue_comment", "comment", number=1, comment_created_at=at)


def test_the_pull_request_as_gitea_says_and_when_its_head_arrived(
        fake: FakeGitea, change_for: Callable[..., GiteaChange]) -> None:
    forge = change_for()
    pr = forge.pull_request()
    assert (pr.number, pr.head, pr.head_ref, pr.head_repository, pr.open) == (
        1, fake.head_sha, "feature", "octo/demo", True)
    assert pr.base == fake.base_sha() and not pr.fork and pr.can_push
    assert forge.moved_since(pr, written("2026-01-01T00:01:00Z")) is None  # written after the push
    moved = forge.moved_since(pr, written("2025-12-31T23:59:00Z"))
    assert moved is not None and "moved" in moved
    fake.activities.clear()
    unknown = forge.moved_since(pr, written("2026-01-01T00:01:00Z"))
    assert unknown is not None and "does not say" in unknown


def test_a_dry_run_records_writes_and_sends_none(
        fake: FakeGitea, change_for: Callable[..., GiteaChange]) -> None:
    forge = change_for()
    recording = forge.api.record_writes()
    state = forge.load()
    assert forge.post(state.head, "review", [draft("in", 2), draft("far", 9)])
    forge.summary(state, "summary")
    assert forge.check(StatusReport("reviewbot", state.head, "success", "ok", "s"))
    assert fake.writes() == []
    assert [(r["method"], r["path"].split("/", 4)[-1]) for r in recording.requests] == [
        ("POST", "pulls/1/reviews"), ("POST", "issues/1/comments"),
        ("POST", f"statuses/{state.head}")]
    assert recording.requests[0]["body"]["comments"][0]["new_position"] == 2


def test_a_wrong_api_url_is_a_usage_error(fake: FakeGitea) -> None:
    from bot.forges.gitea.api import Api, Settings
    with pytest.raises(BotError, match="does not end in /api/v1"):
        Api(Settings("https://gitea.test", "t", "octo/demo"))
