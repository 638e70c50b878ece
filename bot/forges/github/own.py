"""Which of the comments that carry a hidden marker the bot wrote itself. Pure.

Anybody can write a marker, and editing another account's comment is refused: a marked comment
is ours when a bot account wrote it (what a workflow token writes as), else when the account
that wrote our review comments did (a personal access token writes as its user)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from bot.render.markdown import parse_marker


def login(comment: Mapping[str, Any]) -> str:
    user = comment.get("user")
    return str(user.get("login") or "") if isinstance(user, Mapping) else ""


def reviewers(review_comments: Iterable[Mapping[str, Any]]) -> frozenset[str]:
    """Who wrote our review comments: the marked ones that open a thread."""
    return frozenset(login(c) for c in review_comments
                     if parse_marker(c.get("body") or "") and not c.get("in_reply_to_id"))


def first_ours(marked: Iterable[Mapping[str, Any]], reviewers: Iterable[str]
               ) -> Mapping[str, Any] | None:
    """The first marked comment a bot account wrote, else the first one of our reviewers'."""
    candidates = list(marked)
    by_bot = next((c for c in candidates if _user_type(c) == "Bot"), None)
    if by_bot is not None:
        return by_bot
    names = frozenset(reviewers)
    return next((c for c in candidates if login(c) in names), None)


def _user_type(comment: Mapping[str, Any]) -> str | None:
    user = comment.get("user")
    kind = user.get("type") if isinstance(user, Mapping) else None
    return kind if isinstance(kind, str) else None
