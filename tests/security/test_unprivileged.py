"""Which folders the unprivileged user's namespace covers, and what it mounts back: a checkout
below a folder only root may enter is reached, and so are the tools in root's home."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import requires_root
from tests.security.unprivileged import covers


@pytest.fixture
def tmp() -> Iterator[Path]:
    """A folder every user may pass through (pytest's own is root's only)."""
    folder = Path(tempfile.mkdtemp())
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def test_a_checkout_in_a_shut_folder_and_tools_in_the_home(tmp: Path) -> None:
    home, shut, open_ = tmp / "root", tmp / "shut space", tmp / "open"
    for folder, mode in ((home, 0o700), (shut, 0o700), (open_, 0o755)):
        folder.mkdir(mode=mode)
    inner = shut / "deeper"
    inner.mkdir(mode=0o700)  # inside the cover: reached through the outer one's mounts
    reached = [home / ".rustup", home / ".cargo", home / ".cargo" / "bin",
               inner / "clone", inner / "clone" / ".venv", open_ / "python"]
    for folder in reached:
        folder.mkdir(parents=True, exist_ok=True)
    assert covers(home, reached) == {
        home: [home / ".cargo", home / ".rustup"],
        shut: [inner / "clone"],
    }


def test_nothing_but_the_home_when_every_folder_may_be_passed(tmp: Path) -> None:
    home = tmp / "root"
    home.mkdir(mode=0o700)
    (tmp / "clone").mkdir()
    assert covers(home, [tmp / "clone"]) == {home: []}


def test_for_root_without_its_overrides_only_what_root_may_not_pass(tmp: Path) -> None:
    """Root's own 0700 folder it passes as its owner; another user's 0750 home it does not
    (a CI runner's home, the tests run with sudo)."""
    requires_root("giving a folder to another user")
    own, theirs = tmp / "own", tmp / "runner"
    own.mkdir(mode=0o700)
    theirs.mkdir(mode=0o750)
    os.chown(theirs, 1001, 1001)
    reached = [own / "clone", theirs / "work" / "clone"]
    for folder in reached:
        folder.mkdir(parents=True)
    assert covers(None, reached, 0, 0) == {theirs: [theirs / "work" / "clone"]}
