"""Git faults: a detached head, symbolic links that loop or point at their own folder, and a
Git LFS pointer file (the checkout holds the pointer, not the content: linting the pointer as
code would invent findings). The review reports what the change made worse and notes the rest.
A base the clone never fetched is refused with the `git fetch` that brings it."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import GitRepo, require_tool
from tests.faults import repos
from tests.faults.harness import reviewbot

POINTER = ("version https://git-lfs.github.com/spec/v1\n"
           "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
           "size 12345\n")


def test_lfs_pointers_symlink_loops_and_a_detached_head(repo: GitRepo) -> None:
    require_tool("ruff")
    repo.commit({"pyproject.toml": "[tool.ruff.lint]\nselect = ['F']\n", "a.py": "import os\n"})
    repo.git("checkout", "-q", "--detach")
    os.symlink("loop2.py", repo.path / "loop1.py")
    os.symlink("loop1.py", repo.path / "loop2.py")
    os.symlink(".", repo.path / "self")
    repo.commit({"a.py": "import os\nimport sys\n", "models/weights.py": POINTER})
    out = reviewbot(["review", "--base", "main", "--format", "json", "--no-cache"],
                    cwd=repo.path)
    assert not out.crashed and out.status == 1, out.stderr
    report = json.loads(out.stdout)
    assert sorted((f["path"], f["rule"], f["scope"]) for f in report["findings"]) == [
        ("a.py", "F401", "introduced"), ("a.py", "F401", "preexisting")]
    notes = "\n".join(report["notes"])
    assert "models/weights.py" in notes and "LFS" in notes
    assert all(name in notes for name in ("loop1.py", "loop2.py", "self"))


@pytest.mark.parametrize("name", ["origin/main", "main", "sha"])
def test_a_base_never_fetched_is_refused_with_a_fetch_that_works(repo: GitRepo,
                                                                  tmp_path: Path,
                                                                  name: str) -> None:
    """A clone of the feature branch alone: the base names nothing here. The message's
    `git fetch`, run as written, makes the same command review the change."""
    require_tool("ruff")
    repo.commit({"pyproject.toml": "[tool.ruff.lint]\nselect = ['F']\n", "a.py": "import os\n"})
    repo.branch("feature")
    repo.commit({"a.py": "import os\nimport sys\n"})
    clone = repos.feature_only(tmp_path, repo)
    base = repo.git("rev-parse", "main") if name == "sha" else name  # main moved on: not here
    args = ["review", "--base", base, "--format", "json", "--no-cache"]
    out = reviewbot(args, cwd=clone)
    assert out.status == 2 and not out.crashed, out.stderr
    (fetch,) = re.findall(r"\bgit fetch [^,;()\n]*", out.stderr)
    subprocess.run(fetch.rstrip(". ").split(), cwd=clone, check=True, capture_output=True)
    then = re.search(r"then --base ([^\s;,)]+)", out.stderr)
    again = reviewbot([*args[:2], then[1] if then else base, *args[3:]], cwd=clone)
    assert again.status == 1, again.stderr
    assert json.loads(again.stdout)["summary"]["introduced"] == 1
