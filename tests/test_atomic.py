"""Atomic writes: all or nothing, permissions kept, nothing left behind."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from bot import atomic
from bot.cli import main
from tests.conftest import GitRepo


def test_replaces_keeping_permissions_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "run.sh"
    target.write_bytes(b"old\n")
    target.chmod(0o751)
    atomic.write(target, b"new\n", sync=True)
    assert target.read_bytes() == b"new\n" and stat.S_IMODE(target.stat().st_mode) == 0o751
    fresh = tmp_path / "fresh.json"
    atomic.write(fresh, b"{}")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.json", "run.sh"]


def test_a_failed_rename_keeps_the_old_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "plan.json"
    target.write_bytes(b"old")

    def failing(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        atomic.write(target, b"new", replace=failing)
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["plan.json"]


def test_review_writes_sarif(repo: GitRepo, tmp_path: Path) -> None:
    repo.commit({"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401"]\n', "a.py": "x = 1\n"})
    repo.branch("feat")
    repo.commit({"a.py": "import os\nx = 1\n"})
    out = tmp_path / "review.sarif"
    assert main(["review", "--repo", str(repo.path), "--base", "main", "--sarif", str(out)]) == 1
    [result] = json.loads(out.read_text())["runs"][0]["results"]
    assert (result["ruleId"], result["baselineState"]) == ("ruff/F401", "new")
