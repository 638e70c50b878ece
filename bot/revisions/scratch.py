"""The run's scratch folder, and the removal of what killed runs left behind.

A run cleans up after itself, SIGTERM included (`bot.cli`); SIGKILL cannot be caught. So each
scratch folder records its owner (pid, the process's start time so a reused pid is not taken
for it, and the repository its worktrees belong to), and every run first removes the folders,
and the worktrees registered under them, whose owner is gone.

A repository's base checkout has a place of its own that every run reuses (`claim`): tools key
their own caches on file paths, so a base at a new path each run would miss them. The place
is locked while a run uses it; what a killed run left there is removed by the next run that
claims it (the kernel drops a dead process's lock).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from bot import git
from bot.errors import BotError

PREFIX = "reviewbot-"
OWNER = "owner.json"


@dataclass(frozen=True)
class Owner:
    """The process that made a scratch folder, and the repository it was made for."""

    pid: int
    start: str | None  # the kernel's start time of the process; None where unknown
    repo: str


def start_time(pid: int) -> str | None:
    """The start time of process `pid` (Linux: /proc/PID/stat field 22), None if unknown."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text("ascii", "replace")
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()  # the name in parentheses may hold spaces
    if len(fields) < 20 or fields[0] == "Z":  # a zombie has finished
        return None
    return fields[19]


def alive(owner: Owner) -> bool:
    if Path("/proc/self/stat").exists():
        return start_time(owner.pid) is not None and start_time(owner.pid) == owner.start
    try:
        os.kill(owner.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def make(repo: Path) -> Path:
    """A new scratch folder owned by this process; refused (BotError) inside `repo` unless
    TMPDIR says so: Python puts temporary files there when no temporary folder can be
    written (its last resort is the current folder), and the run's worktrees would be made in
    the user's checkout."""
    tmp, top = _tmp(), repo.resolve()
    chosen = {Path(os.environ[name]).resolve() for name in ("TMPDIR", "TEMP", "TMP")
              if os.environ.get(name)}
    if (tmp == top or top in tmp.parents) and tmp not in chosen:
        raise BotError(f"no temporary folder can be written (TMPDIR, /tmp, /var/tmp; the last "
                       f"resort would be {tmp}, inside the repository): set TMPDIR to a "
                       "writable folder outside it")
    folder = Path(tempfile.mkdtemp(prefix=PREFIX, dir=tmp))
    pid = os.getpid()
    (folder / OWNER).write_text(json.dumps({"pid": pid, "start": start_time(pid), "repo": str(repo)}))
    return folder


def read_owner(folder: Path) -> Owner | None:
    try:
        data = json.loads((folder / OWNER).read_text("utf-8"))
        return Owner(int(data["pid"]), data.get("start"), str(data["repo"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def stale_folders() -> dict[Path, Owner]:
    """Scratch folders whose owner is no longer running. A folder without a readable owner
    file is left alone: it may be another run's, just made."""
    found = {}
    for folder in _tmp().glob(f"{PREFIX}*"):
        owner = read_owner(folder)
        if folder.is_dir() and owner is not None and not alive(owner):
            found[folder] = owner
    return found


def _tmp() -> Path:
    # Resolved: git records a worktree's real path, and TMPDIR may be a symbolic link.
    return Path(tempfile.gettempdir()).resolve()


def _ours_and_dead(worktree: Path, stale: dict[Path, Owner]) -> bool:
    """A worktree of a dead run: under a stale scratch folder, or under a scratch folder that
    no longer exists."""
    scratch = worktree.resolve().parent
    if scratch.parent != _tmp() or not scratch.name.startswith(PREFIX):
        return False
    return scratch in stale or not scratch.exists()


def prune(repo: Path) -> None:
    """Remove what killed runs left: their registered worktrees (in `repo`, and in the
    repositories their owner files name) and their scratch folders."""
    stale = stale_folders()
    repos = {Path(o.repo) for o in stale.values() if Path(o.repo).is_dir()}
    if repos or _may_have_worktrees(repo):
        repos.add(repo)
    for each in sorted(repos):
        for worktree in git.worktrees(each):
            if _ours_and_dead(worktree, stale):
                git.worktree_remove(each, worktree)
    for folder in stale:
        shutil.rmtree(folder, ignore_errors=True)


def _may_have_worktrees(repo: Path) -> bool:
    """False only where git keeps no linked worktree of `repo`: its `.git` is a folder with
    no `worktrees` folder in it (where git records each). Read from the disk, not asked of
    git: most runs find none, and the question is asked on every run."""
    admin = repo / ".git"
    if not admin.is_dir():  # a worktree or a submodule itself: git knows where its records are
        return True
    try:
        with os.scandir(admin / "worktrees") as entries:
            return any(True for _ in entries)
    except OSError:
        return False


@dataclass
class Place:
    """A repository's own place for its base checkout (`path`, absent until made), held by
    this run until `release`."""

    path: Path
    lock: IO[str]

    def release(self) -> None:
        """Drop the lock and leave nothing behind: the path is what tools' caches key on, not
        the folder. The lock file goes first, while held (see `claim` for the other side)."""
        home = self.path.parent
        with contextlib.suppress(OSError):
            (home / "lock").unlink()
        self.lock.close()  # closing the file drops the lock
        with contextlib.suppress(OSError):
            home.rmdir()  # only when empty: a run that has just made it keeps it


def claim(repo: Path, home: Path) -> Place | None:
    """The place `home/base` for `repo`'s base checkout, emptied and locked for this run; None
    when another run holds it or `home` cannot be written (the caller then uses a new path)."""
    try:
        home.mkdir(parents=True, exist_ok=True)
        lock = (home / "lock").open("a")
    except OSError:
        return None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        # The holder may have removed the file between our open and our lock (`release`):
        # a lock on a file no longer at the path guards nothing.
        held = os.fstat(lock.fileno()).st_ino == os.stat(home / "lock").st_ino
    except OSError:
        held = False
    if not held:
        lock.close()
        return None
    place = Place(home.resolve() / "base", lock)
    # Only a killed run leaves a folder there (a run that made none has no worktree to list:
    # and git's registration of a folder that is gone is replaced by `worktree add --force`).
    if os.path.lexists(place.path):
        vacate(repo, place.path)
    return place


def vacate(repo: Path, path: Path) -> None:
    """No checkout at `path`: its worktree registration in `repo` and its files removed."""
    if path in git.worktrees(repo) or path.exists():
        git.worktree_remove(repo, path)
    shutil.rmtree(path, ignore_errors=True)
