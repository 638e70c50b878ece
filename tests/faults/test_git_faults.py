"""Git faults: a detached head, symbolic links that loop or point at their own folder, and a
Git LFS pointer file (the checkout holds the pointer, not the content: linting the pointer as
code would invent findings). The review reports what the change made worse and notes the rest."""

from __future__ import annotations

import json
import os

from tests.conftest import GitRepo, require_tool
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
