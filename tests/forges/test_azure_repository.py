"""Azure DevOps's repository side (`bot.forges.azure.repository`) against the validating fake:
who may command the bot, notes found again and edited in place, labels, a file at a revision,
and the sweep's work item kept as text through an HTML description."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.forges.azure.api import Api, Settings
from bot.forges.azure.repository import AzureRepository
from bot.forges.repository import Permission
from tests.conftest import GitRepo
from tests.forges.conftest import Sleeps
from tests.forges.fakeazure import ORGANIZATION, PROJECT, REPOSITORY_ID, SERVER, FakeAzure

MARKER = "<!-- reviewbot:sweep ref=main "


@pytest.fixture
def fake(repo: GitRepo) -> Iterator[FakeAzure]:
    repo.commit({"m.py": "a = 1\n", ".reviewbot.yml": "fail-level: warning\n"}, "base")
    repo.branch("feature")
    repo.commit({"m.py": "a = 2\n"}, "head")
    server = FakeAzure(repo.path)
    yield server
    assert server.errors == [], "\n".join(server.errors)


def repository(fake: FakeAzure, *maintainers: str, **settings: str) -> AzureRepository:
    api = Api(Settings(f"{SERVER}/{ORGANIZATION}/", PROJECT, REPOSITORY_ID, "bot-token", 1,
                       timeout=1.0, **settings), sleep=Sleeps(), http=fake.transport)
    return AzureRepository(api.settings, api=api, maintainers=maintainers)


def test_only_a_named_maintainer_may_command_and_the_build_identity_is_a_bot(
        fake: FakeAzure) -> None:
    repo = repository(fake, " Alice@Octo.test ", "9e3c1b2a-0000-4000-8000-000000000009")
    assert repo.access("alice@octo.test").permission == Permission.MAINTAIN
    assert repo.access("9e3c1b2a-0000-4000-8000-000000000009").may_write
    assert repo.access("rex@octo.test").permission == Permission.NONE
    build = repo.access("Build\\5a1f7d2c-0000-4000-8000-000000000050")
    assert build.bot and not build.may_write
    assert repository(fake).access("alice@octo.test").permission == Permission.NONE
    assert fake.calls == []  # decided from the settings alone


def test_a_note_is_one_thread_edited_in_place(fake: FakeAzure) -> None:
    repo = repository(fake)
    repo.note(1, "<!-- reviewbot:queue -->", "one <!-- reviewbot:queue -->", create=False)
    assert fake.threads == []
    repo.note(1, "<!-- reviewbot:queue -->", "one <!-- reviewbot:queue -->")
    repository(fake).note(1, "<!-- reviewbot:queue -->", "two <!-- reviewbot:queue -->")
    [thread] = fake.threads
    assert thread["comments"][0]["content"] == "two <!-- reviewbot:queue -->"
    assert thread["properties"] == {"reviewbot.note": "1"}


def test_labels_are_added_once_and_removed_by_name(fake: FakeAzure) -> None:
    repo = repository(fake)
    repo.add_label(1, "reviewbot:apply")
    repo.add_label(1, "reviewbot:apply")
    assert repo.labels(1) == ("reviewbot:apply",)
    repo.remove_label(1, "reviewbot:apply")
    repo.remove_label(1, "reviewbot:apply")  # not there: nothing sent
    assert repo.labels(1) == ()
    assert [c.method for c in fake.writes()] == ["POST", "POST", "DELETE"]


def test_a_file_at_a_branch_or_a_commit(fake: FakeAzure) -> None:
    repo = repository(fake)
    assert repo.read_file(".reviewbot.yml") == b"fail-level: warning\n"
    head = fake.head_sha
    assert repo.read_file("m.py", head) == b"a = 2\n"
    assert repo.read_file("m.py", "refs/heads/main") == b"a = 1\n"
    assert repo.read_file("missing.py") is None


def test_the_sweeps_work_item_keeps_its_text_and_is_found_again(fake: FakeAzure) -> None:
    repo = repository(fake)
    body = f"{MARKER}state=abc -->\n# Regressions on `main`\n\n- <b>not</b> HTML & more"
    made = repo.create_issue("reviewbot: regressions on main", body, ["reviewbot:regressions"])
    fields = fake.work_items[made.number]["fields"]
    assert fields["System.Description"].startswith("<pre>&lt;!-- reviewbot:sweep")
    assert fields["System.Tags"] == "reviewbot; reviewbot:regressions"
    assert (made.body, made.labels, made.open) == (body, ("reviewbot:regressions",), True)
    closed = repo.update_issue(made.number, open=False)
    assert not closed.open
    assert fake.work_items[made.number]["fields"]["System.State"] == "Done"
    found = repository(fake).find_issue(MARKER, "reviewbot:regressions")
    assert found is not None and (found.number, found.body) == (made.number, body)
    assert repository(fake).find_issue("<!-- reviewbot:sweep ref=dev ", "reviewbot:regressions") \
        is None
    assert repository(fake).find_issue(MARKER, "another-label") is None


def test_the_processs_state_names_and_a_note_in_the_discussion(fake: FakeAzure) -> None:
    repo = repository(fake, open_state="New", closed_state="Closed")
    made = repo.create_issue("t", f"{MARKER}state=x -->", ["reviewbot:regressions"])
    repo.update_issue(made.number, open=True)
    assert fake.work_items[made.number]["fields"]["System.State"] == "New"
    assert repo.update_issue(made.number, open=False).open is False
    repo.reply(made.number, "The baseline was recorded again.")
    history = fake.work_items[made.number]["fields"]["System.History"]
    assert history == "<pre>The baseline was recorded again.</pre>"
    assert fake.threads == []  # not a thread on pull request 1
