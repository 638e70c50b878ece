"""What other processes can read of this one through /proc.

A process of the same user can read `/proc/PID/environ`, `mem`, `fd` and `cwd` of any other
unless it is non-dumpable (`prctl(PR_SET_DUMPABLE, 0)`); then only a process with
CAP_SYS_PTRACE can (root, in practice). `cmdline` stays readable by every user whatever is done.

`/proc/PID/environ` is not `os.environ`: it is the block of memory the process was started with,
which removing a variable (`unsetenv`) leaves as it was. `blank_environment` overwrites the
values to hide in that block itself, so that even a reader allowed in sees them no more.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from bot.errors import Unprotected

_PR_GET_DUMPABLE = 3
_PR_SET_DUMPABLE = 4
# Fields of /proc/PID/stat, counted from 1 as proc(5) does: where the initial argument and
# environment blocks are in this process's memory.
_ARG_START, _ARG_END, _ENV_START, _ENV_END = 48, 49, 50, 51


def available() -> bool:
    """Whether this system has the Linux /proc and prctl this module relies on."""
    return sys.platform == "linux"


def make_undumpable() -> None:
    """Refuse /proc/self/{environ,mem,fd,cwd,...} and ptrace to other processes of our user,
    checked by asking the kernel back (PR_GET_DUMPABLE). Children start dumpable again
    (execve resets it), which is what a tool needs; they never hold a secret."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise Unprotected(f"prctl(PR_SET_DUMPABLE, 0) failed: errno {ctypes.get_errno()}")
    if libc.prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise Unprotected("prctl(PR_SET_DUMPABLE, 0) did not take effect")


def dumpable() -> bool:
    libc = ctypes.CDLL(None, use_errno=True)
    return bool(libc.prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0))


def _stat_field(fields: Sequence[str], number: int) -> int:
    # `fields` starts at field 3: fields 1 and 2 (pid, comm) are cut off before the split,
    # since comm may hold spaces and parentheses.
    return int(fields[number - 3])


def _blocks() -> tuple[tuple[int, int], tuple[int, int]]:
    """(start, end) of the argument block and of the environment block."""
    text = Path("/proc/self/stat").read_text()
    fields = text[text.rindex(")") + 2:].split()
    return ((_stat_field(fields, _ARG_START), _stat_field(fields, _ARG_END)),
            (_stat_field(fields, _ENV_START), _stat_field(fields, _ENV_END)))


def _entries(start: int, end: int) -> list[tuple[int, bytes]]:
    """The NUL-separated strings of the block [start, end) with their addresses."""
    if end <= start:
        return []
    block = ctypes.string_at(start, end - start)
    out, offset = [], 0
    for raw in block.split(b"\0"):
        out.append((start + offset, raw))
        offset += len(raw) + 1
    return out


def blank_environment(hide: Callable[[str, str], bool]) -> list[str]:
    """Overwrite with NULs, in the initial environment block, the value of every variable
    `hide(name, value)` chooses; the names blanked. Python keeps its own copy of the
    environment (`os.environ`), so this block is no longer read by anything in this process."""
    if not available():
        return []
    blanked = []
    for address, raw in _entries(*_blocks()[1]):
        name, sep, value = raw.partition(b"=")
        text_name = name.decode(errors="replace")
        if sep and value and hide(text_name, value.decode(errors="replace")):
            ctypes.memset(address + len(name) + 1, 0, len(value))
            blanked.append(text_name)
    return blanked


def blank_argument_values(flags: Sequence[str]) -> int:
    """Overwrite with NULs, in the initial argument block (/proc/PID/cmdline, readable by every
    user), the value given to any of `flags` (`--token X`, `--token=X`); how many were blanked.
    `sys.argv` is a copy made at start-up and keeps them."""
    if not available():
        return 0
    blanked, after_flag = 0, False
    for address, raw in _entries(*_blocks()[0]):
        if after_flag and raw:
            ctypes.memset(address, 0, len(raw))
            blanked += 1
        after_flag = raw.decode(errors="replace") in flags
        for flag in flags:
            prefix = f"{flag}=".encode()
            if raw.startswith(prefix) and len(raw) > len(prefix):
                ctypes.memset(address + len(prefix), 0, len(raw) - len(prefix))
                blanked += 1
    return blanked
