"""`GiteaRepository` against the validating fake Gitea: replies, reactions by Gitea's names,
permissions and bots, labels by id, tracking issues, files from git."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from bot.errors import BotError, Exit, ReadOnly
from bot.forges.gitea.api import Api
from bot.forges.gitea.host import ROLES, author, head_refspec, push_env, role
from bot.forges.gitea.repository import GiteaRepository
from bot.forges.repository import Permission
from tests.forges.fakegitea import BOT, HUMAN, FakeGitea, Fault


def test_a_reply_is_a_comment_on_the_pull_request(fake: FakeGitea,
                                                   repository: GiteaRepository) -> None:
    cid = repository.reply(1, "done")
    [comment] = fake.issue_comments
    assert (comment["id"], comment["user"]) == (cid, BOT)
    assert re.fullmatch(r"done\n\n<!-- reviewbot:reply [0-9a-f]{32} -->", comment["body"])


@pytest.mark.parametrize("kind", ["500-before", "500-after", "timeout-before", "timeout-after"])
def test_a_reply_whose_answer_is_lost_is_made_once(fake: FakeGitea, repository: GiteaRepository,
                                                   kind: str) -> None:
    fault = Fault(r"POST .*/issues/1/comments", kind)
    fake.faults.append(fault)
    cid = repository.reply(1, "done")
    [comment] = fake.issue_comments
    assert comment["id"] == cid and comment["body"].startswith("done\n") and fault.hit == 1


def test_reacting_twice_is_one_reaction(fake: FakeGitea, repository: GiteaRepository) -> None:
    cid = repository.reply(1, "a command")
    repository.react(1, cid, "+1")
    repository.react(1, cid, "+1")
    repository.react(1, cid, "eyes")
    assert [r["content"] for r in fake.reactions[cid]] == ["+1", "eyes"]


def test_a_reaction_that_fails_after_its_effect_is_sent_again_harmlessly(
        fake: FakeGitea, repository: GiteaRepository) -> None:
    cid = repository.reply(1, "a command")
    fake.faults.append(Fault(r"POST .*/reactions", "500-after"))
    repository.react(1, cid, "rocket")
    assert [r["content"] for r in fake.reactions[cid]] == ["rocket"]


def test_access_maps_gitea_s_permissions_and_knows_its_bots(
        fake: FakeGitea, repository: GiteaRepository) -> None:
    fake.permissions.update(alice="write")
    alice = repository.access("alice")
    assert (alice.permission, alice.bot, alice.may_write) == (Permission.WRITE, False, True)
    fake.permissions.update(alice="owner")
    assert repository.access("alice").permission == Permission.ADMIN
    fake.permissions.update(alice="read")
    assert repository.access("alice").permission == Permission.READ
    assert repository.access("nobody").permission == Permission.NONE  # unknown: 404
    assert repository.access("reviewbot").bot and repository.access("gitea-actions").bot


def test_labels_go_by_their_ids_and_none_is_created(fake: FakeGitea,
                                                    repository: GiteaRepository) -> None:
    repository.add_label(1, "reviewbot:apply")
    assert fake.issues[1]["labels"] == {1}
    repository.remove_label(1, "reviewbot:apply")
    assert fake.issues[1]["labels"] == set()
    writes = len(fake.writes())
    repository.remove_label(1, "reviewbot:apply")  # not on it: nothing to write
    assert len(fake.writes()) == writes
    with pytest.raises(BotError) as caught:
        repository.add_label(1, "no-such-label")
    assert caught.value.code == Exit.USAGE and "creates none" in caught.value.message
    assert len(fake.labels) == 3


def test_tracking_issues_by_marker_with_their_labels(fake: FakeGitea,
                                                     repository: GiteaRepository) -> None:
    marker = "<!-- reviewbot:sweep -->"
    assert repository.find_issue(marker) is None
    first = repository.create_issue("Regressions", f"{marker}\nlist", ["reviewbot:regressions"])
    repository.create_issue("Other", f"{marker}\nnewer copy")
    assert first.labels == ("reviewbot:regressions",) and first.open
    found = repository.find_issue(marker, "reviewbot:regressions")
    assert found is not None and found.number == first.number
    oldest = repository.find_issue(marker)
    assert oldest is not None and oldest.number == first.number  # the oldest, not the PR
    done = repository.update_issue(first.number, body=f"{marker}\nnone left", labels=["bug"],
                                   open=False)
    assert (done.open, done.labels, done.body.endswith("none left")) == (False, ("bug",), True)
    relabelled = repository.update_issue(first.number, labels=[])
    assert relabelled.labels == () and not relabelled.open


def test_files_are_read_from_git_at_a_ref(fake: FakeGitea, repository: GiteaRepository) -> None:
    assert repository.read_file("m.py") == b"a = 1\nb = 2\nc = 3\n"
    assert repository.read_file("m.py", "feature") == b"a = 1\nnew = 0\nb = 2\nc = 3\n"
    assert repository.read_file(".reviewbot.yml") is None


def test_a_read_only_token_is_read_only(fake: FakeGitea, repository: GiteaRepository) -> None:
    fake.faults.append(Fault(r"POST .*/issues/1/comments", "403"))
    with pytest.raises(ReadOnly):
        repository.reply(1, "hello")


def test_the_host_s_data(api_for: Callable[..., Api]) -> None:
    assert role(Permission.ADMIN) == "owner or admin" and set(ROLES) == set(Permission)
    assert author() == "Gitea Actions <teabot@gitea.io>"
    assert author(forgejo=True).startswith("Forgejo Actions")
    assert head_refspec(7) == "refs/pull/7/head"
    env = push_env("s3cret", "https://gitea.test/")
    assert env["GIT_CONFIG_KEY_0"] == "http.https://gitea.test/.extraheader"
    assert env["GIT_CONFIG_VALUE_0"].startswith("AUTHORIZATION: basic ")
    assert "s3cret" not in env["GIT_CONFIG_VALUE_0"] and push_env("", "https://x") == {}


QUEUE = "<!-- reviewbot:queue -->"


def _notes(fake: FakeGitea) -> list[str]:
    return [c["body"] for c in fake.issue_comments
            if QUEUE in c["body"] and c["user"]["id"] == BOT["id"]]


def test_a_note_is_one_comment_of_the_bot_s_edited_in_place(
        fake: FakeGitea, repository: GiteaRepository) -> None:
    fake.issue_comments.append({"id": 7007, "issue": 1, "user": HUMAN, "created_at": "x",
                                "body": f"{QUEUE}\nnot the bot's"})
    repository.note(1, QUEUE, f"{QUEUE}\npasses", create=False)
    assert _notes(fake) == []
    repository.note(1, QUEUE, f"{QUEUE}\nfails")
    repository.note(1, QUEUE, f"{QUEUE}\npasses", create=False)
    assert _notes(fake) == [f"{QUEUE}\npasses"]
    assert fake.issue_comments[0]["body"] == f"{QUEUE}\nnot the bot's"


@pytest.mark.parametrize("kind", ["500-before", "500-after", "timeout-before", "timeout-after"])
def test_a_note_whose_answer_is_lost_is_made_once(fake: FakeGitea, repository: GiteaRepository,
                                                  kind: str) -> None:
    fake.faults.append(Fault(r"POST .*/issues/1/comments", kind))
    repository.note(1, QUEUE, f"{QUEUE}\nfails")
    assert _notes(fake) == [f"{QUEUE}\nfails"]
