"""The fake Gitea itself: it refuses what Gitea's description refuses, checks its own
answers, and behaves as Gitea's handlers do where the bot depends on it. Sent with plain
httpx, not through the bot's client, so a fault of the client cannot hide one of the fake."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.forges.fakegitea import API, BOT, HUMAN, FakeGitea
from tests.forges.gitea import spec


def send(fake: FakeGitea, method: str, path: str, body: Any = None,
         token: str = "bot-token", **query: str) -> httpx.Response:
    with httpx.Client(transport=fake.transport, headers={"Authorization": f"token {token}"}) as c:
        return c.request(method, f"{API}/repos/octo/demo{path}", json=body, params=query)


def review(fake: FakeGitea, *comments: dict[str, Any]) -> httpx.Response:
    return send(fake, "POST", "/pulls/1/reviews", {"commit_id": fake.head_sha, "body": "",
                                                   "event": "COMMENT", "comments": list(comments)})


def test_a_comment_outside_the_diff_is_stored_where_nobody_sees_it(fake: FakeGitea) -> None:
    assert review(fake, {"path": "far.py", "body": "x", "new_position": 30},
                  {"path": "m.py", "body": "y", "new_position": 2}).status_code == 200
    assert [c["path"] for c in fake.invisible()] == ["far.py"]
    assert [c["path"] for c in fake.bot_comments() if c["visible"]] == ["m.py"]


def test_undeclared_keys_parameters_and_operations_are_errors(fake: FakeGitea) -> None:
    assert review(fake, {"path": "m.py", "body": "y", "line": 2}).status_code == 400
    assert send(fake, "GET", "/pulls/1/reviews", per_page="10").status_code == 400
    assert send(fake, "GET", "/pulls/one").status_code == 400
    assert send(fake, "POST", "/pulls/1/comments/5/resolve").status_code == 400  # not in 1.22
    assert len(fake.errors) == 4 and "'line' was unexpected" in fake.errors[0]
    assert "undeclared query parameter 'per_page'" in fake.errors[1]
    fake.errors.clear()


def test_delete_on_a_review_comment_answers_204_and_deletes_nothing(fake: FakeGitea) -> None:
    made = review(fake, {"path": "m.py", "body": "y", "new_position": 2}).json()
    [comment] = fake.bot_comments()
    assert send(fake, "DELETE", f"/issues/comments/{comment['id']}").status_code == 204
    assert fake.bot_comments() == [comment]
    assert send(fake, "PATCH", f"/issues/comments/{comment['id']}", {"body": "z"}).status_code == 200
    assert comment["body"] == "z"  # edits do apply to review comments
    assert send(fake, "DELETE", f"/pulls/1/reviews/{made['id']}").status_code == 204
    assert fake.bot_comments() == [] and fake.reviews == []


def test_only_the_reviewer_deletes_a_review(fake: FakeGitea) -> None:
    made = review(fake, {"path": "m.py", "body": "y", "new_position": 2}).json()
    assert send(fake, "DELETE", f"/pulls/1/reviews/{made['id']}", token="alice-token"
                ).status_code == 403


def test_a_reply_is_a_comment_on_the_same_line_in_the_review_it_answers(
        fake: FakeGitea) -> None:
    made = review(fake, {"path": "m.py", "body": "y", "new_position": 2}).json()
    [ours] = fake.bot_comments()
    reply = fake.reply(ours["id"], "why?")
    assert (reply["path"], reply["position"], reply["user"]) == ("m.py", 2, HUMAN)
    listed = send(fake, "GET", f"/pulls/1/reviews/{made['id']}/comments").json()
    assert [c["user"]["login"] for c in listed] == ["reviewbot", "alice"]


def test_1_26_resolves_conversations(fake: FakeGitea) -> None:
    fake.version = "1.26.0"
    review(fake, {"path": "m.py", "body": "y", "new_position": 2})
    [ours] = fake.bot_comments()
    answer = send(fake, "POST", f"/pulls/1/comments/{ours['id']}/resolve")
    assert answer.status_code == 200 and answer.json()["resolver"]["login"] == BOT["login"]


def test_the_fake_s_answers_are_checked_too() -> None:
    assert spec.response_errors("GET", "/user", 200, {"id": 1, "login": "x", "type": "Bot"})
    assert spec.response_errors("GET", "/repos/o/r/pulls/1", 200, {"number": "1"})
    assert not spec.response_errors("GET", "/version", 200, {"version": "1.22.6"})


def test_lists_are_paged_as_gitea_pages_them(fake: FakeGitea) -> None:
    fake.labels += [{"id": 10 + i, "name": f"l{i}", "color": "000000"} for i in range(60)]
    first = send(fake, "GET", "/labels", limit="50")
    last = send(fake, "GET", "/labels", page="2", limit="50")
    assert (len(first.json()), first.headers["x-total-count"], 'rel="next"' in first.headers["link"]
            ) == (50, "63", True)
    assert len(last.json()) == 13 and "link" not in last.headers


@pytest.mark.parametrize("kind", ["500-before", "500-after"])
def test_faults_before_and_after_the_effect(fake: FakeGitea, kind: str) -> None:
    from tests.forges.fakegitea import Fault
    fake.faults.append(Fault(r"POST .*/issues/1/comments", kind))
    assert send(fake, "POST", "/issues/1/comments", {"body": "b"}).status_code == 500
    assert len(fake.issue_comments) == (1 if kind == "500-after" else 0)
