"""Room for the tools that can take hundreds of MB (`LinterSpec.memory_heavy`): how many of
them may run at once.

Two heavy runs at once (ESLint beside golangci-lint, or golangci-lint at both revisions) were
a 1,000-file review's peak of 637-656 MB; one at a time, 372-478 MB, at the price of cold
time (docs/performance.md). So they run together where the memory the job may still take has
room for each one's estimate (`LinterSpec.memory_peak`) beside the rest of the review, and one
at a time where it has not. That memory is the machine's `MemAvailable`, or less where the
job's cgroup (v2 `memory.max`, v1 `memory.limit_in_bytes`, on its own folder or one above)
leaves less: a CI container's limit. Read when no heavy run is under way, so what they take
is never counted twice. `REVIEWBOT_HEAVY_TOOLS` overrides: a whole number N lets up to N run
at once whatever the memory, `auto` (the default) decides by memory.

The parsing is pure; `room()` is the I/O edge (tests point `PROC` and `CGROUP` elsewhere).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from bot.errors import BotError

VARIABLE = "REVIEWBOT_HEAVY_TOOLS"
MiB = 2**20
# Kept free for the rest of the review beside the heavy runs: the bot itself (under 90 MB at
# 1,000 files), the light tools, git.
RESERVE = 256 * MiB
# A cgroup limit at or above this is no limit (v1 writes 2**63 rounded down to a page).
_UNLIMITED = 2**62

PROC = Path("/proc")
CGROUP = Path("/sys/fs/cgroup")


@dataclass(frozen=True)
class Setting:
    """What the variable says: `at_once` heavy runs whatever the memory, or None (by memory)."""

    at_once: int | None = None


def setting(environ: Mapping[str, str] | None = None) -> Setting:
    """`REVIEWBOT_HEAVY_TOOLS` read; a value that does not read is a BotError naming it."""
    raw = (os.environ if environ is None else environ).get(VARIABLE, "").strip().lower()
    if raw in ("", "auto"):
        return Setting()
    if raw.isdigit() and int(raw) >= 1:
        return Setting(int(raw))
    raise BotError(f"{VARIABLE}={raw!r}: expected auto or a whole number of at least 1 "
                   "(how many memory-heavy tools may run at once)")


# --- parsing: pure -------------------------------------------------------------------------

def mem_available(meminfo: str) -> int | None:
    """`MemAvailable` of a /proc/meminfo, in bytes."""
    for line in meminfo.splitlines():
        name, _, value = line.partition(":")
        if name == "MemAvailable":
            parts = value.split()
            if parts and parts[0].isdigit():
                return int(parts[0]) * 1024
    return None


def cgroup_folders(self_cgroup: str) -> tuple[str | None, str | None]:
    """This process's cgroup v2 path and v1 memory path, from /proc/self/cgroup."""
    v2 = v1 = None
    for line in self_cgroup.splitlines():
        fields = line.split(":", 2)
        if len(fields) != 3:
            continue
        hierarchy, controllers, path = fields
        if hierarchy == "0" and controllers == "":
            v2 = path
        elif "memory" in controllers.split(","):
            v1 = path
    return v2, v1


def limit_left(limit: str, usage: str, stat: str, inactive_name: str) -> int | None:
    """What a cgroup still lets its processes take: its limit less its usage, the page cache
    it could reclaim (`inactive_file`) not counted as used. None: no limit."""
    text = limit.strip()
    if text in ("", "max") or not text.isdigit() or int(text) >= _UNLIMITED:
        return None
    used = int(usage.strip()) if usage.strip().isdigit() else 0
    for line in stat.splitlines():
        name, _, value = line.partition(" ")
        if name == inactive_name and value.strip().isdigit():
            used -= min(used, int(value.strip()))
            break
    return max(0, int(text) - used)


def combine(available: int | None, limits: list[int | None]) -> int | None:
    """The least of the machine's available memory and each cgroup's room; None: unknown."""
    known = [x for x in [available, *limits] if x is not None]
    return min(known) if known else None


# --- the machine: I/O ------------------------------------------------------------------------

def _read(path: Path) -> str:
    try:
        return path.read_text()
    except (OSError, UnicodeDecodeError):
        return ""


def _ancestors(mount: Path, path: str) -> list[Path]:
    """The cgroup's own folder under `mount` and every one above it, the mount included (a
    container sees its own cgroup at the mount's root)."""
    parts = [p for p in path.split("/") if p and p != ".."]
    out = [mount.joinpath(*parts[:i]) for i in range(len(parts), 0, -1)]
    return [p for p in out if p.is_dir()] + [mount]


def room() -> int | None:
    """The memory, in bytes, this job may still take; None where the machine does not say
    (no /proc/meminfo, no cgroup limit): heavy tools then run one at a time."""
    available = mem_available(_read(PROC / "meminfo"))
    v2, v1 = cgroup_folders(_read(PROC / "self" / "cgroup"))
    limits: list[int | None] = []
    if v2 is not None and (CGROUP / "cgroup.controllers").is_file():
        for folder in _ancestors(CGROUP, v2):
            limits.append(limit_left(_read(folder / "memory.max"),
                                     _read(folder / "memory.current"),
                                     _read(folder / "memory.stat"), "inactive_file"))
    if v1 is not None and (CGROUP / "memory").is_dir():
        for folder in _ancestors(CGROUP / "memory", v1):
            limits.append(limit_left(_read(folder / "memory.limit_in_bytes"),
                                     _read(folder / "memory.usage_in_bytes"),
                                     _read(folder / "memory.stat"), "total_inactive_file"))
    return combine(available, limits)


# --- the gate ----------------------------------------------------------------------------------

class HeavyGate:
    """Admits heavy runs: always one; more while the room read when the first started holds
    each one's estimate beside the others' and `RESERVE` (or up to the variable's number)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._running = 0
        self._held = 0  # the estimates of the runs under way
        self._room: int | None = None
        self._setting = Setting()

    def _admits(self, need: int) -> bool:
        """Beside the runs under way (there is one at least)."""
        if self._setting.at_once is not None:
            return self._running < self._setting.at_once
        return self._room is not None and self._held + need + RESERVE <= self._room

    @contextlib.contextmanager
    def hold(self, need: int) -> Iterator[None]:
        """Wait for room for a run estimated at `need` bytes, hold it while the run lasts."""
        with self._cond:
            while True:
                if self._running == 0:  # nothing heavy under way: what the machine has now
                    self._setting = setting()
                    self._room = room() if self._setting.at_once is None else None
                    break
                if self._admits(need):
                    break
                self._cond.wait()
            self._running += 1
            self._held += need
        try:
            yield
        finally:
            with self._cond:
                self._running -= 1
                self._held -= need
                self._cond.notify_all()
