"""GitLab's project side (`GitLabRepository`) against the fake GitLab: access levels, award
emoji, labels, issues, files; and the faults a write must survive without doubling (5xx after
effect, 429 with Retry-After, timeouts)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.errors import Uncertain
from bot.forges.gitlab import repository as gitlab
from bot.forges.repository import Permission
from tests.conftest import GitRepo
from tests.forges.conftest import Sleeps
from tests.forges.fakegitlab import BOT, HUMAN, FakeGitLab, Fault


@pytest.fixture
def fake(repo: GitRepo) -> Iterator[FakeGitLab]:
    repo.commit({"app.py": "x = 1\n", "dir/conf.yml": "a: 1\n"}, "base")
    repo.branch("feature")
    repo.commit({"app.py": "x = 2\n"}, "feature")
    with FakeGitLab(repo.path, late=1.5) as server:
        yield server
        assert server.errors == []


def _repository(fake: FakeGitLab, sleeps: Sleeps, replies: str = "merge_requests",
                users: dict[str, int] | None = None) -> gitlab.GitLabRepository:
    return gitlab.GitLabRepository(gitlab.RepositorySettings(
        fake.api_url, "glpat-bot", "42", timeout=1.0, replies=replies),  # type: ignore[arg-type]
        users=users, sleep=sleeps)


@pytest.mark.parametrize("level, permission, role", [
    ("owner", Permission.ADMIN, "Owner"), ("maintainer", Permission.MAINTAIN, "Maintainer"),
    ("developer", Permission.WRITE, "Developer"), ("reporter", Permission.TRIAGE, "Reporter"),
    ("planner", Permission.READ, "Guest"), ("guest", Permission.READ, "Guest"),
    (None, Permission.NONE, "no role")])
def test_access_levels(fake: FakeGitLab, sleeps: Sleeps, level: str | None,
                       permission: Permission, role: str) -> None:
    user = fake.user("someone", level)
    access = _repository(fake, sleeps, users={"someone": user["id"]}).access("someone")
    assert (access.permission, access.bot) == (permission, False)
    assert gitlab.role(access.permission) == role


def test_bots_and_the_bot_itself(fake: FakeGitLab, sleeps: Sleeps) -> None:
    deployer = fake.user("deploy_bot", "maintainer", bot=True)
    repository = _repository(fake, sleeps)
    assert repository.access("deploy_bot").bot  # found by username, then GET /users/:id
    assert deployer["id"] in [int(c.path.rsplit("/", 1)[-1]) for c in fake.calls
                              if c.path.startswith("/users/")]
    me = repository.access(BOT["username"])
    assert me.bot and me.permission == Permission.NONE
    assert repository.access("nobody-gitlab-knows").permission == Permission.NONE


def test_award_emoji_twice_is_one_award(fake: FakeGitLab, sleeps: Sleeps) -> None:
    note = fake.note_by(HUMAN, "/help")
    repository = _repository(fake, sleeps)
    for reaction in ("eyes", "eyes", "-1"):
        repository.react(3, note["id"], reaction)  # type: ignore[arg-type]
    assert fake.award_names(note["id"]) == ["eyes", "thumbsdown"]


def test_an_award_lost_after_effect_is_sent_again_harmlessly(fake: FakeGitLab,
                                                            sleeps: Sleeps) -> None:
    note = fake.note_by(HUMAN, "/help")
    fake.faults.append(Fault("POST /award_emoji$", "502-after"))
    _repository(fake, sleeps).react(3, note["id"], "rocket")
    assert fake.award_names(note["id"]) == ["rocket"]
    assert [c.status for c in fake.calls] == [502, 404]  # the second: "already been taken"


@pytest.mark.parametrize("kind", ["502-after", "502", "timeout-after", "timeout"])
def test_a_reply_whose_answer_is_lost_is_made_once(fake: FakeGitLab, sleeps: Sleeps,
                                                   kind: str) -> None:
    """Found by its hidden key when the write took effect, sent again when it did not."""
    fake.faults.append(Fault("POST /merge_requests/3/notes$", kind))
    made = _repository(fake, sleeps).reply(3, "/close this is quoted, not run")
    [note] = fake.bot_notes()
    assert note["id"] == made and note["body"].startswith("&#47;close")


def test_reads_wait_as_gitlab_says_and_survive_timeouts(fake: FakeGitLab, sleeps: Sleeps) -> None:
    user = fake.user("dev", "developer")
    fake.faults += [Fault("GET /members/all/", "429"), Fault("GET /users/", "timeout")]
    access = _repository(fake, sleeps, users={"dev": user["id"]}).access("dev")
    assert access.permission == Permission.WRITE
    assert 7.0 in sleeps and all(f.hit == 1 for f in fake.faults)


def test_remove_label_keeps_the_other_labels(fake: FakeGitLab, sleeps: Sleeps) -> None:
    fake.labels = ["bug", "reviewbot:apply", "ui"]
    repository = _repository(fake, sleeps)
    repository.remove_label(3, "reviewbot:apply")
    repository.remove_label(3, "reviewbot:apply")  # not there: a no-op
    assert fake.labels == ["bug", "ui"]
    repository.add_label(3, "later")
    assert fake.labels == ["bug", "ui", "later"]


def test_issues_by_marker_label_and_state(fake: FakeGitLab, sleeps: Sleeps) -> None:
    repository = _repository(fake, sleeps, replies="issues")
    made = repository.create_issue("regressions", "<!-- m1 -->\n/close is quoted", ["sweep"])
    repository.create_issue("other", "<!-- m1 -->", ["elsewhere"])
    assert made.open and made.labels == ("sweep",) and "&#47;close" in made.body
    closed = repository.update_issue(made.number, open=False, body="<!-- m1 --> closed")
    assert not closed.open
    found = repository.find_issue("<!-- m1 -->", "sweep")
    assert found is not None and found.number == made.number and not found.open
    assert repository.find_issue("<!-- m2 -->") is None
    repository.reply(made.number, "fixed")
    assert fake.issues[0]["notes"][0]["body"].startswith("fixed\n\n<!-- reviewbot:reply ")
    assert repository.update_issue(made.number, open=True, labels=["a", "b"]).labels == ("a", "b")


def test_a_new_issue_lost_after_effect_is_uncertain(fake: FakeGitLab, sleeps: Sleeps) -> None:
    fake.faults.append(Fault("POST /issues$", "timeout-after"))
    with pytest.raises(Uncertain):
        _repository(fake, sleeps).create_issue("t", "<!-- m -->")
    assert len(fake.issues) == 1  # made once; the sweep looks for it before making another


def test_files_and_merge_requests_of_commits(fake: FakeGitLab, sleeps: Sleeps) -> None:
    repository = _repository(fake, sleeps)
    assert repository.read_file("dir/conf.yml") == b"a: 1\n"
    assert repository.read_file("app.py", "feature") == b"x = 2\n"
    assert repository.read_file("missing.yml") is None
    sha = "c" * 40
    fake.commit_mrs[sha] = [{"iid": 9, "state": "opened", "author": {"username": "bob"}},
                            {"iid": 4, "state": "merged", "author": {"username": "eve"}}]
    assert repository.merge_request_of(sha) == (4, "eve", True)
    assert repository.merge_request_of("d" * 40) is None


QUEUE = "<!-- reviewbot:queue -->"


def _notes(fake: FakeGitLab) -> list[str]:
    return [d["notes"][0]["body"] for d in fake.discussions
            if QUEUE in d["notes"][0]["body"] and d["notes"][0]["author"]["id"] == BOT["id"]]


def test_a_note_is_one_of_the_bot_s_edited_in_place(fake: FakeGitLab, sleeps: Sleeps) -> None:
    repository = _repository(fake, sleeps)
    theirs = fake.note_by(HUMAN, f"{QUEUE}\nnot the bot's")
    repository.note(3, QUEUE, f"{QUEUE}\npasses", create=False)
    assert _notes(fake) == []
    repository.note(3, QUEUE, f"{QUEUE}\n/merge fails")  # a quick action is escaped
    repository.note(3, QUEUE, f"{QUEUE}\npasses", create=False)
    assert _notes(fake) == [f"{QUEUE}\npasses"]
    assert theirs["body"] == f"{QUEUE}\nnot the bot's"


@pytest.mark.parametrize("kind", ["502-after", "502", "timeout-after", "timeout"])
def test_a_note_whose_answer_is_lost_is_made_once(fake: FakeGitLab, sleeps: Sleeps,
                                                  kind: str) -> None:
    fake.faults.append(Fault("POST /merge_requests/3/notes$", kind))
    _repository(fake, sleeps).note(3, QUEUE, f"{QUEUE}\nfails")
    assert _notes(fake) == [f"{QUEUE}\nfails"]


def test_a_dry_run_records_every_project_write_and_sends_none(fake: FakeGitLab,
                                                               sleeps: Sleeps) -> None:
    """The project side records at `_write` like the merge request side, into one list: a
    reply, an award, labels, an issue made and closed (answered as the request describes it,
    so the sweep goes on), a note; reads still go to GitLab."""
    fake.labels = ["bug"]
    repository = _repository(fake, sleeps, replies="issues")
    recording = repository.record_writes()
    made = repository.create_issue("regressions", "<!-- m1 -->", ["sweep", "ci"])
    assert (made.number, made.labels, made.open) == (0, ("sweep", "ci"), True)
    closed = repository.update_issue(made.number, open=False)
    assert (closed.number, closed.open) == (0, False)
    repository.reply(3, "fixed")
    repository.react(3, 5, "eyes")
    repository.add_label(3, "later")
    repository.remove_label(3, "bug")
    repository.note(3, "<!-- q -->", "<!-- q --> the queue's word")
    assert [(r["method"], r["path"]) for r in recording.requests] == [
        ("POST", "/projects/42/issues"), ("PUT", "/projects/42/issues/0"),
        ("POST", "/projects/42/issues/3/notes"),
        ("POST", "/projects/42/merge_requests/3/notes/5/award_emoji"),
        ("PUT", "/projects/42/merge_requests/3"), ("PUT", "/projects/42/merge_requests/3"),
        ("POST", "/projects/42/merge_requests/3/notes")]
    assert recording.requests[1]["body"] == {"state_event": "close"}
    assert fake.issues == [] and fake.labels == ["bug"]
    assert all(c.method == "GET" for c in fake.calls)  # the note's lookup read GitLab
