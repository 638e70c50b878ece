"""Views of a revision: the git view answers exactly as the disk view of its checkout."""

from __future__ import annotations

import os
from pathlib import PurePosixPath

from hypothesis import given
from hypothesis import strategies as st

from bot import git
from bot.revisions.trees import DiskView, GitView, nearest_dir_with, suffix
from tests.conftest import GitRepo


def head(repo: GitRepo) -> str:
    rev = git.rev_parse(repo.path, "HEAD")
    assert rev is not None
    return rev


FILES: dict[str, str | bytes] = {
    "pyproject.toml": "[tool.ruff]\n", "a.py": "import os\n", "pkg/b.py": "x = 1\r\n",
    "pkg/ruff.toml": "line-length = 90\n", "odd [name]?.py": "y = 2\n", "bin.dat": b"\0\1",
}


def test_git_view_gives_the_disk_view_blob_ids(repo: GitRepo) -> None:
    repo.commit(FILES)
    os.symlink("a.py", repo.path / "link.py")
    repo.commit()
    view = GitView(repo.path, head(repo), {})
    asked = [*FILES, "./a.py", "missing.py", "pkg", "link.py"]
    from_git, from_disk = view.blobs(asked), DiskView(repo.path).blobs(asked)
    files = [*FILES, "./a.py"]
    assert {p: from_git[p] for p in files} == {p: from_disk[p] for p in files}
    assert "missing.py" not in from_git and "pkg" not in from_git
    # A symlink is a file on disk (its target's bytes) but never shares a file's key.
    assert from_git["link.py"] != from_disk["link.py"]


def test_git_view_overlay_is_the_config_the_head_lends(repo: GitRepo) -> None:
    repo.commit({"pyproject.toml": "[tool.ruff]\n", "ruff.toml": "x = 1\n"})
    view = GitView(repo.path, head(repo), {"pyproject.toml": "f" * 40, "ruff.toml": None})
    assert view.blobs(["./pyproject.toml", "ruff.toml"]) == {"./pyproject.toml": "f" * 40}




def test_walks_and_markers_agree(repo: GitRepo) -> None:
    repo.commit({
        "go.mod": "module m\n", "main.go": "package main\n", "a/a.go": "package a\n",
        "a/b/b.go": "package b\n", "a/testdata/t.go": "package t\n", "_x/x.go": "package x\n",
        ".hidden/h.go": "package h\n", "node_modules/n/n.go": "package n\n",
        "nested/go.mod": "module n\n", "nested/n.go": "package n\n", "a/go.sum": "",
        "a/README.md": "hi\n", "sub dir/[odd].go": "package odd\n", "a/.go": "",
        "a/go.": "", "a/two.x.go": "package a\n", "a/go.mod.go": "package a\n",
    })
    os.symlink("a", repo.path / "linked")
    repo.commit()
    disk, tree = DiskView(repo.path), GitView(repo.path, head(repo))
    for top, stop in ((".", "go.mod"), (".", None), ("a", "go.mod"), ("nested", "go.mod")):
        args = (top, frozenset({".go"}), frozenset({"go.mod", "go.sum"}), stop)
        assert tree.walk(*args) == disk.walk(*args), (top, stop)
    assert "nested/n.go" not in tree.walk(".", frozenset({".go"}), stop="go.mod")
    for path in ("a/b/b.go", "nested/n.go", "main.go", "x/y/z.go"):
        assert nearest_dir_with(tree, path, ["go.mod"]) == nearest_dir_with(disk, path, ["go.mod"])
    assert nearest_dir_with(tree, "nested/n.go", ["go.mod"]) == "nested"


@given(st.text(alphabet=".ago/x", max_size=8))
def test_a_name_s_suffix_is_pathlib_s(name: str) -> None:
    if name and "/" not in name:
        assert suffix(name) == PurePosixPath(name).suffix


def test_listing_then_lookups_and_overlay(repo: GitRepo) -> None:
    repo.commit({"pyproject.toml": "[tool.ruff]\n", "a.py": "x = 1\n", "ruff.toml": "\n"})
    tree = GitView(repo.path, head(repo), {"ruff.toml": None, "mypy.ini": "f" * 40})
    assert tree.walk(".", frozenset({".py"}), frozenset({"ruff.toml", "mypy.ini"})) == ["a.py", "mypy.ini"]
    assert tree.is_file("./a.py") and not tree.is_file("ruff.toml") and tree.is_file("mypy.ini")
    assert tree.blobs(["a.py"]) == DiskView(repo.path).blobs(["a.py"])
