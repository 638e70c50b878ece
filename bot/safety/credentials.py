"""Where the bot's secrets live once it has started: out of its environment, in one mapping.

At start-up (`captured`) every variable that holds a credential (`is_secret`) is taken out of
`os.environ`, so that no process started later inherits it, and its value is blanked in the
environment block the kernel shows as /proc/PID/environ (`selfproc.blank_environment`): removing
a variable from `os.environ` does not change that block. Commands read the secrets back through
`environ()`, the process environment with them put back, and hand each one only to where it is
used: the HTTP client, or the environment of one git push. What counts as a credential is
`bot.secrecy`'s rule, the one `bot.proc` keeps from every process it starts.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping

from bot.safety import selfproc
from bot.secrecy import is_secret

_held: dict[str, str] = {}


@contextlib.contextmanager
def captured() -> Iterator[Mapping[str, str]]:
    """Inside: the secrets are out of `os.environ` and blanked in the environment block, held
    here only (the mapping yielded). On leaving they are put back into `os.environ` (not into
    the block), for a caller that goes on in the same process: the tests call the command
    line's entry point in theirs."""
    taken = {name: value for name, value in os.environ.items() if is_secret(name, value)}
    for name in taken:
        del os.environ[name]
    selfproc.blank_environment(is_secret)
    previous = dict(_held)
    _held.update(taken)
    try:
        yield dict(_held)
    finally:
        _held.clear()
        _held.update(previous)
        os.environ.update(taken)


def environ() -> dict[str, str]:
    """The process environment with the captured secrets: what a command reads its settings
    and its token from. Never the environment of a process (see `bot.proc`)."""
    return {**os.environ, **_held}
