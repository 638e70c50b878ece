"""The sticky summary: one comment on the change, edited in place, made exactly once.

Forge-neutral: each forge gives the comment as it holds it (`Sticky`) and its own `edit`,
`post` and `find` (`bot/forges/*/change.py`). An edit of a comment deleted since it was read
posts it again; a post whose answer was lost (`Uncertain`) looks for the comment before it is
sent again, so a lost answer never makes a second summary."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from bot.errors import NotFound, Uncertain

H = TypeVar("H")


@dataclass(frozen=True)
class Sticky(Generic[H]):
    """The summary as the forge holds it: its id, its body, and the forge's own handle."""

    id: int
    body: str
    handle: H


@dataclass(frozen=True)
class Writes(Generic[H]):
    """How one forge edits, posts and finds its summary, and how it waits between tries."""

    edit: Callable[[Sticky[H], str], Sticky[H]]
    post: Callable[[str], Sticky[H] | None]
    find: Callable[[], Sticky[H] | None]
    sleep: Callable[[float], None]
    wait: Callable[[int], float]  # seconds before try `attempt` + 1
    retries: int
    noun: str = "summary comment"


def keep(body: str, current: Sticky[H] | None, writes: Writes[H]) -> Sticky[H] | None:
    """`body` in the summary: `current` edited (nothing sent when it already says it), else
    a new one posted. Returns the summary as it now is (None: the forge did not say)."""
    if current is not None:
        if current.body == body:
            return current
        try:
            return writes.edit(current, body)
        except NotFound:  # deleted since it was read: a new one takes its place
            print(f"reviewbot: the {writes.noun} {current.id} was deleted meanwhile; "
                  "posting it again")
    for attempt in range(writes.retries + 1):
        try:
            return writes.post(body)
        except Uncertain:
            if attempt == writes.retries:
                raise
            writes.sleep(writes.wait(attempt))
            found = writes.find()
            if found is not None:  # the failed post did make it
                return keep(body, found, writes)
    raise AssertionError("unreachable: the last try returns or raises")


def note(body: str, writes: Writes[H], *, create: bool) -> None:
    """`body` in the note `writes.find` finds (a sweep's or an issue's sticky comment), edited
    in place or posted; where there is none, nothing is made unless `create`."""
    current = writes.find()
    if current is None and not create:
        return
    keep(body, current, writes)
