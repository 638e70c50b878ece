"""The Bitbucket pull request side and repository side (`bot.forges.bitbucket`) against the
validating fake: what the end-to-end runs do not reach (an abbreviated head, a report over
Bitbucket's limits, a summary someone else wrote, a duplicate, a redirect elsewhere, the sweep's
state that does not fit a report)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.errors import BotError, Exit
from bot.forges.base import Annotation, Draft, PullRef, StatusReport
from bot.forges.bitbucket.api import Api, Settings
from bot.forges.bitbucket.change import BitbucketChange
from bot.forges.bitbucket.markers import from_wire
from bot.forges.bitbucket.pulls import BitbucketPulls
from bot.forges.bitbucket.repository import BitbucketRepository
from bot.model import Severity
from bot.render.markdown import SUMMARY_MARKER
from tests.conftest import GitRepo
from tests.forges.conftest import Sleeps
from tests.forges.fakebitbucket import API, BOT, HUMAN, NOW, REPOSITORY, FakeBitbucket
from tests.forges.kept import kept_read_serves_one_load

SETTINGS = Settings(API, "bot-token", REPOSITORY, 1)
MARKER = "<!-- reviewbot:fp=fp-1 h=0a -->"


@pytest.fixture
def fake(repo: GitRepo) -> FakeBitbucket:
    repo.commit({"a.py": "x = 1\n"}, "base")
    repo.branch("feature")
    repo.commit({"a.py": "".join(f"v{n} = {n}\n" for n in range(1, 21))}, "head")
    return FakeBitbucket(repo.path)


def api(fake: FakeBitbucket) -> Api:
    return Api(SETTINGS, http=fake.transport, sleep=Sleeps())


def change(fake: FakeBitbucket) -> BitbucketChange:
    return BitbucketChange(SETTINGS, api=api(fake))


@pytest.fixture(autouse=True)
def valid(fake: FakeBitbucket) -> object:
    yield
    assert fake.errors == []


def test_an_abbreviated_head_is_read_in_full_from_the_commits(fake: FakeBitbucket) -> None:
    full = fake.head_sha
    original = fake._pull

    def short() -> tuple[int, object]:
        status, data = original()
        data["source"]["commit"]["hash"] = full[:12]  # type: ignore[index]
        return status, data

    fake._pull = short  # type: ignore[method-assign]
    assert change(fake).load().head == full


def test_lines_outside_the_diff_and_file_drafts_are_refused_unsent(fake: FakeBitbucket) -> None:
    drafts = [Draft("fp-1", "a.py", f"one {MARKER}", 3), Draft("fp-2", "a.py", "two", 40),
              Draft("fp-3", "a.py", "three", None), Draft("fp-4", "b.py", "four", 1)]
    refused = change(fake).post(fake.head_sha, "", drafts)
    assert [r.draft.key for r in refused] == ["fp-2", "fp-3", "fp-4"]
    assert [c["inline"] for c in fake.comments] == [{"path": "a.py", "to": 3}]


def test_a_report_over_bitbucket_s_limits_is_sent_in_requests_of_100_and_cut_at_1000(
        fake: FakeBitbucket) -> None:
    notes = tuple(Annotation("a.py", n % 20 + 1, n % 20 + 1, Severity.WARNING, f"ruff R{n}",
                             f"finding {n}") for n in range(1, 1051))
    report = StatusReport("reviewbot", fake.head_sha, "failure", "failing: 1050 new", "body",
                          notes)
    assert change(fake).check(report)
    posts = [c for c in fake.writes() if c.path.endswith("/annotations")]
    assert [len(c.body) for c in posts] == [100] * 10
    kept = fake.annotations[(fake.head_sha, "reviewbot")]
    assert len(kept) == 1000 and {a["severity"] for a in kept} == {"MEDIUM"}
    assert fake.reports[(fake.head_sha, "reviewbot")]["details"].startswith(
        "failing: 1050 new. 50 more findings than a report holds")
    writes = len(fake.writes())
    assert change(fake).check(report)  # the same report again: nothing sent
    assert len(fake.writes()) == writes


def test_a_summary_someone_else_wrote_is_not_ours(fake: FakeBitbucket) -> None:
    fake.comments.append({"id": 7, "raw": f"{SUMMARY_MARKER} copied", "user": HUMAN,
                          "deleted": False, "created_on": NOW, "updated_on": NOW})
    side = change(fake)
    state = side.load()
    assert state.summary_id is None
    side.summary(state, f"{SUMMARY_MARKER} ours")
    assert [from_wire(c["raw"]) for c in fake.bot_comments()] == [f"{SUMMARY_MARKER} ours"]


def test_a_kept_read_serves_the_next_load_only_until_a_write(fake: FakeBitbucket) -> None:
    side = change(fake)
    kept_read_serves_one_load(
        side, f"{SUMMARY_MARKER} ours", fake.calls,
        lambda c: c.method == "GET" and c.path.endswith("/pullrequests/1/comments"),
        lambda head: side.post(head, "", [Draft("fp-1", "a.py", f"one {MARKER}", 3)]))


def test_a_duplicate_is_deleted_and_one_someone_answered_is_kept(fake: FakeBitbucket) -> None:
    side = change(fake)
    side.post(fake.head_sha, "", [Draft("fp-1", "a.py", f"one {MARKER}", 3),
                                  Draft("fp-1", "a.py", f"two {MARKER}", 4)])
    first, second = side.load().comments
    fake.reply(int(first.id), "a human's answer")
    again = change(fake)
    first, second = again.load().comments
    assert first.replied and not second.replied
    again.delete(second)
    assert [from_wire(c["raw"]) for c in fake.bot_comments()] == [f"one {MARKER}"]


def test_a_redirect_out_of_the_api_is_refused(fake: FakeBitbucket) -> None:
    original = fake._route

    def away(method: str, path: str, *rest: object) -> tuple[int, object, dict[str, str]]:
        if path.endswith("/pullrequests/1/diff"):
            return 302, None, {"Location": "https://elsewhere.test/diff"}
        return original(method, path, *rest)  # type: ignore[arg-type]

    fake._route = away  # type: ignore[method-assign]
    with pytest.raises(BotError, match="outside its API") as caught:
        change(fake).diff_lines()
    assert caught.value.code == Exit.FORGE


def test_the_sweep_s_report_refuses_a_state_it_cannot_hold(fake: FakeBitbucket) -> None:
    fake.has_issues = False
    repository = BitbucketRepository(SETTINGS, api=api(fake), history=(fake.head_sha,))
    assert repository.find_issue("<!-- reviewbot:sweep ref=main ") is None
    long_state = "<!-- reviewbot:sweep ref=main state=" + "x" * 2100 + " -->\nbody"
    with pytest.raises(BotError, match="turn the repository's issue tracker on") as caught:
        repository.create_issue("reviewbot: regressions on main", long_state)
    assert caught.value.code == Exit.USAGE and fake.reports == {}


def test_a_permission_is_the_commenter_s_and_needs_an_admin_token(fake: FakeBitbucket) -> None:
    repository = BitbucketRepository(SETTINGS, api=api(fake))
    with pytest.raises(BotError, match="admin permission") as caught:
        repository.access(HUMAN["account_id"])
    assert caught.value.code == Exit.FORGE
    # Bitbucket's own words, not its JSON
    assert "(Bitbucket: not found" not in caught.value.message
    assert "403 Your credentials lack one or more required privilege scopes." in \
        caught.value.message and '{"type"' not in caught.value.message
    fake.permissions[BOT["account_id"]] = "admin"
    access = repository.access(HUMAN["account_id"])
    assert (access.login, access.permission.label, access.bot) == ("alice", "write", False)
    assert repository.access("557058:unknown").permission.label == "none"
    assert repository.access(BOT["account_id"]).bot


def test_a_file_is_read_at_the_commit_given_else_the_target_s(fake: FakeBitbucket,
                                                             tmp_path: Path) -> None:
    base = fake.base_sha()
    repository = BitbucketRepository(SETTINGS, api=api(fake), default_ref=base)
    assert repository.read_file("a.py") == b"x = 1\n"
    assert repository.read_file("a.py", fake.head_sha) == (
        "".join(f"v{n} = {n}\n" for n in range(1, 21)).encode())
    assert repository.read_file("missing.py") is None


def test_a_commit_s_pull_request_is_the_merged_one_and_none_before_indexing(
        fake: FakeBitbucket) -> None:
    pulls = BitbucketPulls(api(fake))
    assert pulls.pull_of(fake.head_sha) is None  # not indexed: Bitbucket answers 404
    fake.merged_in[fake.head_sha] = [(3, HUMAN, "OPEN"), (7, BOT, "MERGED"), (2, HUMAN, "OPEN")]
    assert pulls.pull_of(fake.head_sha) == PullRef(7, "reviewbot", True)
    fake.merged_in[fake.head_sha] = [(3, HUMAN, "OPEN"), (2, HUMAN, "DECLINED")]
    assert pulls.pull_of(fake.head_sha) == PullRef(2, "alice", False)


def test_a_sweep_s_note_goes_on_its_issue(fake: FakeBitbucket) -> None:
    repository = BitbucketRepository(SETTINGS, api=api(fake), sweeping=True)
    issue = repository.create_issue("reviewbot: regressions on main", "<!-- reviewbot:sweep -->")
    repository.reply(issue.number, "All fixed.")
    [note] = fake.issue_comments
    assert note["issue"] == issue.number and from_wire(note["raw"]).startswith("All fixed.")
    assert fake.comments == []
