"""The runner's file commands, watched while the pull request's code runs.

GitHub Actions reads files named by GITHUB_ENV, GITHUB_PATH, GITHUB_OUTPUT, GITHUB_STATE and
GITHUB_STEP_SUMMARY after a step: a line a tool appends to GITHUB_ENV (`NODE_OPTIONS=...`) or
GITHUB_PATH runs its code in every later step of the job, and one in GITHUB_OUTPUT forges this
step's outputs. So the files are read before any tool runs (`Watch`), the bot's own writes go
through the watch (`append`), and any other change is undone and reported (`Watch.check`).
GitLab CI has no such files: a job's later commands read nothing a tool could write to.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.errors import Tampered

# The variables are `bot.secrecy.FILE_COMMANDS` (no tool inherits them). These are what the
# action's entry point watches around the command it starts: that command writes the job
# summary itself and watches it.
COMMANDS = ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STATE")


@dataclass
class _Watched:
    """A file a runner's variable names, and what it held when the watch began."""

    name: str  # the variable that names the file
    path: Path
    content: bytes | None  # None: the file did not exist


def _read(path: Path) -> bytes | None:
    """The file's content; None when it is missing."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _same(path: Path, content: bytes | None) -> bool:
    if content is None:
        return not os.path.lexists(path)
    try:
        st = path.stat()
    except FileNotFoundError:
        return False
    # A regular file of the same size first: a tool may have made it huge, or a link to a device.
    if not stat.S_ISREG(st.st_mode) or st.st_size != len(content):
        return False
    return path.read_bytes() == content


def _restore(path: Path, content: bytes | None) -> None:
    if path.is_symlink() or (path.exists() and not path.is_file()) or content is None:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
    if content is None:
        return
    # In place: the runner holds the path, and the folder may not be ours to create files in.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as handle:
        handle.write(content)


class Watch:
    """The files `names` (variables of `env`) as they were when made, plus the bot's own
    appends since."""

    def __init__(self, env: Mapping[str, str], names: Sequence[str]) -> None:
        self._files = [_Watched(name, Path(env[name]), _read(Path(env[name])))
                       for name in names if env.get(name)]

    def check(self) -> None:
        """Raise `Tampered` after putting back every file that is not as expected."""
        changed = [w for w in self._files if not _same(w.path, w.content)]
        for w in changed:
            _restore(w.path, w.content)
        if changed:
            raise Tampered([w.name for w in changed])

    def append(self, path: Path, text: str) -> bool:
        """Append `text` to `path` if it is watched (after `check`): True; else False."""
        watched = next((w for w in self._files if w.path == path), None)
        if watched is None:
            return False
        self.check()
        data = text.encode()
        with open(path, "ab") as handle:
            handle.write(data)
        watched.content = (watched.content or b"") + data
        return True


_active: list[Watch] = []


@contextlib.contextmanager
def watching(watch: Watch) -> Iterator[None]:
    """`append` writes through `watch` in the block. The check on leaving is the caller's
    (`Watch.check`): it decides what a tampered file means for its exit status."""
    _active.append(watch)
    try:
        yield
    finally:
        _active.remove(watch)


def append(path: str | Path, text: str) -> None:
    """The bot's own write to a file command (the job summary, the action's outputs): through
    the innermost watch that has the file, else straight to it. Raises `Tampered` when the
    file was changed by someone else first (put back, nothing appended)."""
    target = Path(path)
    for watch in reversed(_active):
        if watch.append(target, text):
            return
    with open(target, "a", encoding="utf-8") as handle:
        handle.write(text)
