"""The linked base: the same files, bytes and modes as a checkout of the base, made from
hard links to the head's files, with every file that differs written from git."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from bot.revisions import linked, workspace
from tests.conftest import GitRepo


def test_plan_links_what_both_revisions_share() -> None:
    base = {"a.py": "100644 aa", "b.py": "100644 bb", "run.sh": "100644 cc", "go.mod": "100644 dd",
            "gone.py": "100644 ee", "pkg/pyproject.toml": "100644 ff", "cfg.toml": "100644 11"}
    head = {"a.py": "100644 aa", "b.py": "100644 b2", "run.sh": "100755 cc", "go.mod": "100644 dd",
            "new.py": "100644 99", "pkg/pyproject.toml": "100644 ff", "cfg.toml": "100644 11"}
    todo = linked.plan(base, head, linked.ALWAYS_COPIED | {"cfg.toml"})
    assert todo.links == ["a.py"]
    assert todo.writes == ["b.py", "cfg.toml", "go.mod", "gone.py", "pkg/pyproject.toml", "run.sh"]


def snapshot(root: Path) -> dict[str, tuple[str, bytes, bool]]:
    out = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel == ".git" or (path.is_dir() and not path.is_symlink()):
            continue
        kind = "link" if path.is_symlink() else "file"
        data = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
        out[rel] = (kind, data, os.access(path, os.X_OK) and not path.is_symlink())
    return out


@pytest.fixture
def changed(repo: GitRepo) -> GitRepo:
    repo.commit({"a.py": "x = 1\n", "b.py": "y = 1\n", "sub/deep/c.py": "z = 1\n", "run.sh": "echo\n",
                 "Cargo.lock": "# lock\n", "pyproject.toml": "[tool.ruff]\n", "old.py": "o = 1\n",
                 "crlf.txt": "one\ntwo\n", ".gitattributes": "crlf.txt text eol=crlf\n"})
    (repo.path / "run.sh").chmod(0o755)
    os.symlink("a.py", repo.path / "alias.py")
    repo.commit()
    repo.branch("feat")
    repo.git("rm", "-q", "old.py")
    repo.commit({"b.py": "y = 2\n", "new.py": "n = 1\n", "pyproject.toml": "[tool.ruff]\nx = 1\n",
                 "alias.py": None, "crlf.txt": "one\ntwo\nthree\n"})
    os.symlink("b.py", repo.path / "alias.py")
    (repo.path / "run.sh").chmod(0o644)
    repo.commit()
    return repo


def make(repo: GitRepo, read_only: bool) -> tuple[dict[str, tuple[str, bytes, bool]], str, Path]:
    rev = workspace.resolve(repo.path, "main", "HEAD")
    with workspace.checkouts(rev, ["pyproject.toml"]) as trees:
        trees.read_only = read_only
        root = trees.base()
        shot, how = snapshot(root), trees.how
        inode = root / "a.py"
        shared = inode.stat().st_ino == (repo.path / "a.py").stat().st_ino
    return shot, how, Path("shared" if shared else "copied")


def test_a_linked_base_equals_a_checkout_of_the_base(changed: GitRepo) -> None:
    linked_shot, how, sharing = make(changed, read_only=True)
    checkout_shot, how2, _ = make(changed, read_only=False)
    assert (how, how2, str(sharing)) == ("linked", "checkout", "shared")
    # pyproject.toml is the head's (borrowed config) in both.
    assert linked_shot == checkout_shot
    assert linked_shot["crlf.txt"] == ("file", b"one\r\ntwo\r\n", False)  # as checked out
    assert linked_shot["run.sh"][2] and linked_shot["alias.py"] == ("link", b"a.py", False)
    assert "old.py" in linked_shot and "new.py" not in linked_shot
    assert changed.git("status", "--porcelain") == ""  # the head's files are untouched


def test_files_missing_from_the_head_are_written(changed: GitRepo) -> None:
    # A file the head's working tree lacks (sparse checkout, skip-worktree) is written instead.
    changed.git("update-index", "--skip-worktree", "sub/deep/c.py")
    (changed.path / "sub" / "deep" / "c.py").unlink()
    shot, how, _ = make(changed, read_only=True)
    assert how == "linked" and shot["sub/deep/c.py"] == ("file", b"z = 1\n", False)


def test_no_links_possible_falls_back_to_a_checkout(changed: GitRepo,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    def cross_device(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    expected, _, _ = make(changed, read_only=False)
    monkeypatch.setattr(os, "link", cross_device)
    shot, how, sharing = make(changed, read_only=True)
    assert (how, str(sharing)) == ("checkout", "copied") and shot == expected


def test_a_file_name_that_is_not_utf8(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    name = os.fsdecode(b"caf\xe9.py")
    repo.commit({"a.py": "x = 1\n"})
    (repo.path / name).write_text("y = 1\n")
    repo.commit()
    repo.branch("feat")
    repo.commit({"a.py": "x = 2\n"})
    shot, how, _ = make(repo, read_only=True)
    assert how == "linked" and shot[name] == ("file", b"y = 1\n", False)
    # A partial checkout git refuses: a full checkout instead, never a half-made base.
    from bot import git
    from bot.errors import BotError

    def refused(*args: object) -> None:
        raise BotError("git checkout-index failed")

    monkeypatch.setattr(git, "checkout_paths", refused)
    shot, how, _ = make(repo, read_only=True)
    assert how == "checkout" and shot[name] == ("file", b"y = 1\n", False) and "a.py" in shot
