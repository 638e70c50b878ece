"""The repository side against the validating fake GitHub: replies, reactions, permissions,
labels and tracking issues, built without a pull request number."""

from __future__ import annotations

import pytest

from bot.forges.base import Draft
from bot.forges.github.api import Settings
from bot.forges.github.change import GitHubChange
from bot.forges.github.repository import GitHubRepository
from bot.forges.repository import Permission
from bot.render.markdown import marker
from tests.forges.conftest import Sleeps
from tests.forges.fakegithub import FakeGitHub, Fault

MARKER = "<!-- reviewbot:sweep -->"


@pytest.fixture
def repo_side(fake: FakeGitHub, sleeps: Sleeps) -> GitHubRepository:
    return GitHubRepository(Settings(api_url=fake.api_url, graphql_url=fake.graphql_url,
                                     token="t0ken", repository=f"{fake.owner}/{fake.repo}",
                                     timeout=1.0, write_spacing=0.0), sleep=sleeps)


def test_reply_and_react_to_a_command(fake: FakeGitHub, repo_side: GitHubRepository) -> None:
    command = fake.comment_by("alice", "/review")
    reply = repo_side.reply(fake.number, "On it.")
    assert fake.s.issue_comments[reply]["body"].startswith("On it.\n\n<!-- reviewbot:reply ")
    repo_side.react(fake.number, command, "eyes")
    repo_side.react(fake.number, command, "eyes")  # twice is still one reaction
    repo_side.react(fake.number, command, "+1")
    assert [r["content"] for r in fake.s.reactions[command]] == ["eyes", "+1"]


def test_a_reaction_whose_answer_is_lost_is_sent_again(fake: FakeGitHub,
                                                       repo_side: GitHubRepository) -> None:
    command = fake.comment_by("alice", "/fix")
    fake.faults.append(Fault(r"POST /issues/comments/\d+/reactions$", "502-after"))
    repo_side.react(fake.number, command, "rocket")
    assert [r["content"] for r in fake.s.reactions[command]] == ["rocket"]


@pytest.mark.parametrize("kind", ["502-after", "502", "timeout-after", "timeout"])
def test_a_reply_whose_answer_is_lost_is_made_once(fake: FakeGitHub, repo_side: GitHubRepository,
                                                   kind: str) -> None:
    """Found by its hidden key when the write took effect, sent again when it did not."""
    fake.faults.append(Fault(r"POST /issues/\d+/comments$", kind))
    made = repo_side.reply(fake.number, "Done.")
    [(cid, comment)] = fake.s.issue_comments.items()
    assert cid == made and comment["body"].startswith("Done.\n")


@pytest.mark.parametrize("role,expected", [
    ("admin", Permission.ADMIN), ("maintain", Permission.MAINTAIN), ("write", Permission.WRITE),
    ("triage", Permission.TRIAGE), ("read", Permission.READ)])
def test_permission_keeps_maintain_and_triage(fake: FakeGitHub, repo_side: GitHubRepository,
                                              role: str, expected: Permission) -> None:
    fake.grant("carol", role)
    access = repo_side.access("carol")
    assert (access.login, access.permission, access.bot) == ("carol", expected, False)
    assert access.may_write == (expected >= Permission.WRITE)


def test_bots_and_strangers(fake: FakeGitHub, repo_side: GitHubRepository) -> None:
    fake.grant("dependabot[bot]", "write", bot=True)
    bot = repo_side.access("dependabot[bot]")
    assert bot.bot and bot.permission == Permission.WRITE
    stranger = repo_side.access("mallory")
    assert (stranger.permission, stranger.bot, stranger.may_write) == (Permission.NONE, False, False)


def test_labels_on_the_pull_request(fake: FakeGitHub, repo_side: GitHubRepository) -> None:
    repo_side.add_label(fake.number, "reviewbot:apply")
    repo_side.add_label(fake.number, "needs review")
    repo_side.add_label(fake.number, "reviewbot:apply")
    assert fake.s.labels[fake.number] == ["reviewbot:apply", "needs review"]
    repo_side.remove_label(fake.number, "reviewbot:apply")
    repo_side.remove_label(fake.number, "reviewbot:apply")  # gone already: no error
    assert fake.s.labels[fake.number] == ["needs review"]


def test_tracking_issue_found_by_marker_created_and_updated(
        fake: FakeGitHub, repo_side: GitHubRepository) -> None:
    assert repo_side.find_issue(MARKER) is None
    fake.s.issues[90] = {"title": "unrelated", "body": "no marker", "state": "open"}
    created = repo_side.create_issue("reviewbot sweep", f"{MARKER}\n3 findings", ["reviewbot"])
    assert created.open and created.labels == ("reviewbot",)
    found = repo_side.find_issue(MARKER, label="reviewbot")
    assert found == created
    closed = repo_side.update_issue(created.number, body=f"{MARKER}\nall fixed", open=False,
                                    labels=["reviewbot", "done"])
    assert (closed.open, closed.body, closed.labels) == (False, f"{MARKER}\nall fixed",
                                                         ("reviewbot", "done"))
    assert repo_side.find_issue(MARKER) == closed  # closed issues are found too
    assert repo_side.find_issue(MARKER, label="other") is None
    assert fake.s.issues[created.number]["title"] == "reviewbot sweep"


def test_the_pull_request_itself_is_never_the_tracking_issue(
        fake: FakeGitHub, repo_side: GitHubRepository) -> None:
    fake.s.issues.clear()
    # The PR's own entry in the issues list says nothing of the marker, and is skipped anyway.
    assert repo_side.find_issue("") is None


def test_issues_are_read_across_pages(fake: FakeGitHub, repo_side: GitHubRepository) -> None:
    for number in range(100, 250):
        fake.s.issues[number] = {"title": str(number), "body": "x", "state": "open"}
    fake.s.issues[300] = {"title": "sweep", "body": MARKER, "state": "open"}
    found = repo_side.find_issue(MARKER)
    assert found is not None and found.number == 300
    pages = [c.query.get("page") for c in fake.calls if c.path.endswith("/issues")]
    assert pages == [["1"], ["2"]]


def test_read_file_at_a_ref_or_the_default_branch(fake: FakeGitHub,
                                                  repo_side: GitHubRepository) -> None:
    fake.s.files[("main", ".reviewbot.yml")] = "fail-level: warning\n"
    fake.s.files[("release", "a b.yml")] = "x: 1\n"
    repo = repo_side
    assert repo.read_file(".reviewbot.yml") == b"fail-level: warning\n"
    assert repo.read_file("a b.yml", "release") == b"x: 1\n"
    assert repo.read_file(".reviewbot.yaml") is None
    assert fake.errors == []


QUEUE = "<!-- reviewbot:queue -->"


def _notes(fake: FakeGitHub) -> list[str]:
    return [c["body"] for c in fake.s.issue_comments.values()
            if QUEUE in c["body"] and c["user"]["type"] == "Bot"]


def test_a_note_is_one_comment_of_the_bot_s_edited_in_place(fake: FakeGitHub,
                                                            repo_side: GitHubRepository) -> None:
    theirs = fake.comment_by("mallory", f"{QUEUE}\nnot the bot's")
    repo_side.note(fake.number, QUEUE, f"{QUEUE}\npasses", create=False)
    assert _notes(fake) == []  # nothing to edit, and none posted
    repo_side.note(fake.number, QUEUE, f"{QUEUE}\nfails")
    repo_side.note(fake.number, QUEUE, f"{QUEUE}\nfails")  # says it already: nothing sent
    fake.reset_calls()
    repo_side.note(fake.number, QUEUE, f"{QUEUE}\npasses", create=False)
    assert _notes(fake) == [f"{QUEUE}\npasses"]
    assert [c.method for c in fake.calls if c.write] == ["PATCH"]
    assert fake.s.issue_comments[theirs]["body"] == f"{QUEUE}\nnot the bot's"


@pytest.mark.parametrize("kind", ["502-after", "502", "timeout-after", "timeout"])
def test_a_note_whose_answer_is_lost_is_made_once(fake: FakeGitHub, repo_side: GitHubRepository,
                                                  kind: str) -> None:
    fake.faults.append(Fault(r"POST /issues/\d+/comments$", kind))
    repo_side.note(fake.number, QUEUE, f"{QUEUE}\nfails")
    assert _notes(fake) == [f"{QUEUE}\nfails"]


def test_a_personal_token_s_note_is_found_by_the_account_that_wrote_the_review(
        fake: FakeGitHub, repo_side: GitHubRepository, sleeps: Sleeps) -> None:
    """A personal token writes as a user, not a bot: as the summary is, the note is the one
    written by the account that wrote the review's comments, not a second one each run."""
    fake.s.writer = "octo-maintainer"
    forge = GitHubChange(Settings(api_url=fake.api_url, graphql_url=fake.graphql_url,
                                 token="t0ken", repository=f"{fake.owner}/{fake.repo}",
                                 number=fake.number, timeout=1.0, write_spacing=0.0),
                        sleep=sleeps)
    forge.post(fake.s.head, "review", [Draft("k", "a.py", "x\n" + marker("k", "0"), line=3)])
    theirs = fake.comment_by("mallory", f"{QUEUE}\nnot the maintainer's")
    repo_side.note(fake.number, QUEUE, f"{QUEUE}\nfails")
    repo_side.note(fake.number, QUEUE, f"{QUEUE}\nfails again")
    repo_side.note(fake.number, QUEUE, f"{QUEUE}\npasses", create=False)
    mine = [c["body"] for c in fake.s.issue_comments.values()
            if QUEUE in c["body"] and c["user"]["login"] == "octo-maintainer"]
    assert mine == [f"{QUEUE}\npasses"]
    assert fake.s.issue_comments[theirs]["body"] == f"{QUEUE}\nnot the maintainer's"
