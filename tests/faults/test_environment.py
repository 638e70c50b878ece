"""Environment faults: what the machine around a review is missing or refuses. Each review
still ends with a status the README lists and one line saying what is wrong, never a traceback."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import GitRepo, require_tool
from tests.faults.harness import as_user, reviewbot


@pytest.fixture
def py_change(repo: GitRepo) -> GitRepo:
    """A change that ruff finds one new F401 in: the gate fails with status 1."""
    require_tool("ruff")
    repo.commit({"pyproject.toml": "[tool.ruff.lint]\nselect = ['F']\n", "a.py": "import os\n"})
    repo.branch("feature")
    repo.commit({"a.py": "import os\nimport sys\n"})
    return repo


def test_an_unreadable_folder_on_path_is_passed_over(py_change: GitRepo, tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0)
    try:
        probe = os.system(" ".join([*as_user(), "ls", str(locked), ">/dev/null", "2>&1"]))
        assert probe != 0, "the folder must be unreadable for the run below"
        env = {**os.environ, "PATH": f"{locked}{os.pathsep}{os.environ['PATH']}"}
        out = reviewbot(["review", "--base", "main", "--format", "json", "--no-cache"],
                        cwd=py_change.path, env=env, unprivileged=True)
    finally:
        locked.chmod(0o700)
    assert not out.crashed, out.stderr
    assert out.status == 1, out.stderr
    report = json.loads(out.stdout)
    assert [(t["name"], t["status"]) for t in report["tools"]] == [("ruff", "ok")]
    assert report["summary"]["introduced"] == 1
