"""What every forge does when one of its earlier comments is gone by the time it writes to it
(its author or a maintainer deleted it between the read and the write): an edit is skipped
with one line, a delete has what it wanted, a reaction has nothing to react to. The run goes
on in each case; any other answer is the caller's."""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from bot.errors import NotFound


def edit(noun: str, ident: object, send: Callable[[], object]) -> None:
    """`send()`, an edit of `noun` `ident`; gone meanwhile: said, and not edited."""
    try:
        send()
    except NotFound:
        print(f"reviewbot: {noun} {ident} was deleted meanwhile; not edited")


def delete(send: Callable[[], object]) -> None:
    """`send()`, a delete; already gone: what was wanted."""
    with contextlib.suppress(NotFound):
        send()


def react(noun: str, ident: object, what: str, send: Callable[[], object]) -> None:
    """`send()`, a reaction of `what` to `noun` `ident`; gone meanwhile: said, and none made."""
    try:
        send()
    except NotFound:
        print(f"reviewbot: {noun} {ident} was deleted meanwhile; no {what}")
