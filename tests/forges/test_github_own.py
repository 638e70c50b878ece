"""Which marked comments are the bot's own: a bot account's, else its reviewers'."""

from __future__ import annotations

from typing import Any

from bot.forges.github import own
from bot.render.markdown import marker


def comment(cid: int, login: str, kind: str = "User", body: str = "x",
            reply_to: int | None = None) -> dict[str, Any]:
    return {"id": cid, "user": {"login": login, "type": kind}, "body": body,
            **({"in_reply_to_id": reply_to} if reply_to else {})}


def test_reviewers_are_who_opened_a_marked_thread() -> None:
    marked = "finding\n" + marker("k", "0")
    assert own.reviewers([comment(1, "octo-maintainer", body=marked),
                          comment(2, "mallory", body=marked, reply_to=1),
                          comment(3, "alice")]) == {"octo-maintainer"}


def test_a_bot_s_comment_comes_first_then_a_reviewer_s_and_no_one_else_s() -> None:
    mallory, mine, bot = (comment(1, "mallory"), comment(2, "octo-maintainer"),
                          comment(3, "github-actions[bot]", "Bot"))
    assert own.first_ours([mallory, mine, bot], {"octo-maintainer"}) is bot
    assert own.first_ours([mallory, mine], {"octo-maintainer"}) is mine
    assert own.first_ours([mallory, mine], ()) is None
