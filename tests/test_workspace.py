"""The revisions' checkouts: blob ids from git equal those hashed from disk, and the base
checkout is made only when a tool misses the cache."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot import git, workspace
from bot.cache import DiskView
from bot.linters.base import LinterAnalyzer
from bot.linters.ruff import SPEC as RUFF
from bot.pipeline import ReviewOptions, run_review
from tests.conftest import GitRepo

FILES: dict[str, str | bytes] = {
    "pyproject.toml": "[tool.ruff]\n", "a.py": "import os\n", "pkg/b.py": "x = 1\r\n",
    "pkg/ruff.toml": "line-length = 90\n", "odd [name]?.py": "y = 2\n", "bin.dat": b"\0\1",
}


def test_git_view_gives_the_disk_view_blob_ids(repo: GitRepo) -> None:
    repo.commit(FILES)
    os.symlink("a.py", repo.path / "link.py")
    repo.commit()
    rev = git.rev_parse(repo.path, "HEAD")
    assert rev is not None
    view = workspace.GitView(repo.path, rev, {})
    asked = [*FILES, "./a.py", "missing.py", "pkg", "link.py"]
    from_git, from_disk = view.blobs(asked), DiskView(repo.path).blobs(asked)
    files = [*FILES, "./a.py"]
    assert {p: from_git[p] for p in files} == {p: from_disk[p] for p in files}
    assert "missing.py" not in from_git and "pkg" not in from_git
    # A symlink is a file on disk (its target's bytes) but never shares a file's key.
    assert from_git["link.py"] != from_disk["link.py"]


def test_git_view_overlay_is_the_config_the_head_lends(repo: GitRepo) -> None:
    repo.commit({"pyproject.toml": "[tool.ruff]\n", "ruff.toml": "x = 1\n"})
    rev = git.rev_parse(repo.path, "HEAD")
    assert rev is not None
    view = workspace.GitView(repo.path, rev, {"pyproject.toml": "f" * 40, "ruff.toml": None})
    assert view.blobs(["./pyproject.toml", "ruff.toml"]) == {"./pyproject.toml": "f" * 40}


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    made: list[str] = []
    real = git.worktree_add

    def counting(repo: Path, where: Path, rev: str) -> None:
        made.append(where.name)
        real(repo, where, rev)

    monkeypatch.setattr(git, "worktree_add", counting)
    return made


def review(repo: GitRepo, cache: Path) -> list[tuple[str, str, int, str]]:
    result = run_review(ReviewOptions(repo=repo.path, base="main", cache_dir=cache,
                                      analyzers={"ruff": LinterAnalyzer(RUFF)}))
    assert [t.status for t in result.tools] == ["ok"]
    return sorted((v.finding.rule, v.finding.path, v.finding.line, v.scope) for v in result.findings)


def test_a_warm_run_never_makes_the_base_checkout(repo: GitRepo, tmp_path: Path,
                                                  counted: list[str]) -> None:
    repo.commit({"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401"]\n',
                 "a.py": "import os\n", "pkg/b.py": "import sys\n"})
    repo.branch("feat")
    repo.commit({"a.py": "import os\nimport json\n", "pkg/b.py": "import sys\nimport re\n"})
    cold = review(repo, tmp_path / "c")
    assert counted == ["base"]
    assert review(repo, tmp_path / "c") == cold
    assert counted == ["base"], "every base entry hit: no checkout"
    # A new push: the head changed, the base did not; still no base checkout.
    repo.commit({"a.py": "import os\nimport json\nimport abc\n"})
    assert ("F401", "a.py", 3, "introduced") in review(repo, tmp_path / "c")
    assert counted == ["base"]
    # The head changes the configuration the base borrows: the base is linted again.
    repo.commit({"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401", "E401"]\n'})
    review(repo, tmp_path / "c")
    assert counted == ["base", "base"]


def test_checkouts_leave_nothing_behind(repo: GitRepo) -> None:
    repo.commit({"a.py": "x = 1\n"})
    repo.branch("feat")
    repo.commit({"a.py": "x = 2\n"})
    rev = workspace.resolve(repo.path, "main", "HEAD")
    with workspace.checkouts(rev, ["pyproject.toml"]) as trees:
        assert not trees.base_root.exists()
        assert (trees.base() / "a.py").read_text() == "x = 1\n" and trees.base() == trees.base_root
        scratch = trees.scratch
    assert not scratch.exists()
    assert "base" not in repo.git("worktree", "list")
