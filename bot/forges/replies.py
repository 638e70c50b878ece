"""A reply posted once whatever the forge answered: each reply carries a hidden key of its
own, and after an answer that leaves it uncertain (a 5xx, a timeout) the change's comments
are searched for the key before the reply is sent again. Without it a lost answer meant a
second reply, or a reply lost, and a command asked once answered twice or not at all.

Forge-neutral: each forge gives its own `post` and `find` (`bot/forges/*/repository`)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable

from bot.errors import Uncertain

PREFIX = "<!-- reviewbot:reply "


def keyed(body: str) -> tuple[str, str]:
    """A new key, and `body` carrying it (hidden: an HTML comment)."""
    key = uuid.uuid4().hex
    return key, f"{body}\n\n{PREFIX}{key} -->"


def found(key: str, comments: Iterable[tuple[int, str]]) -> int | None:
    """The id of the comment (id, body) that carries `key`, if one does."""
    marker = f"{PREFIX}{key} -->"
    return next((cid for cid, body in comments if marker in body), None)


def once(body: str, post: Callable[[str], int],
         find: Callable[[str], int | None]) -> int:
    """Post `body` once: after an uncertain answer, the id of the reply the forge did make,
    or the id of the reply sent again (an uncertain answer to that one is raised)."""
    key, text = keyed(body)
    try:
        return post(text)
    except Uncertain:
        made = find(key)
        return made if made is not None else post(text)
