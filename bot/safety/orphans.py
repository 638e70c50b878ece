"""Processes the tools leave behind: adopted while the command runs, killed when it ends.

A tool can start a process that leaves its process group (`setsid`, a double fork) and outlives
it: the bot's kill of the tool's group misses it, and it could write the runner's file commands
after the bot's last look at them, or read the environment of a process the bot starts later.
While the command runs the bot is the child subreaper of everything it starts
(`PR_SET_CHILD_SUBREAPER`): such a process becomes the bot's own child when its parent exits,
and `end` kills every child the bot did not have before and no longer tracks.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
from collections.abc import Callable, Iterator, Set
from pathlib import Path

from bot.safety import selfproc

_PR_SET_CHILD_SUBREAPER = 36
_ROUNDS = 50  # a killed process's own children come to us next: a bound on the generations


def _subreaper(on: bool) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0)


def children() -> set[int]:
    """This process's children, from /proc (their parent pid, field 4 of stat)."""
    me, found = os.getpid(), set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        fields = text[text.rindex(")") + 2:].split()
        if int(fields[1]) == me:
            found.add(int(entry.name))
    return found


def _reap(pid: int) -> None:
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def end(before: Set[int], tracked: Callable[[], Set[int]]) -> list[int]:
    """Kill and reap every child that is not in `before` nor `tracked()` (processes the bot
    started and still owns), until none is left; the pids killed."""
    killed: list[int] = []
    for _ in range(_ROUNDS):
        strays = children() - set(before) - set(tracked())
        if not strays:
            break
        for pid in strays:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            _reap(pid)
            killed.append(pid)
    return killed


@contextlib.contextmanager
def adopted(tracked: Callable[[], Set[int]]) -> Iterator[None]:
    """Inside, the process is the subreaper of what it starts; leaving, the strays die."""
    if not selfproc.available():
        yield
        return
    before = children()
    _subreaper(True)
    try:
        yield
    finally:
        end(before, tracked)
        _subreaper(False)
