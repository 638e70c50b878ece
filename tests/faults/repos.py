"""Git faults made for real, for the fault matrix: the clone a review runs in (shallow, or
without the base's branch), a submodule whose pointer and files change, and a repository of
100,000 files. Each works on the matrix's repository (its `main` holds the base, `feature` the
change) and leaves the faults in place for the review to meet."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import GitRepo

BIG = 100_000


def git(where: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=where, check=True, capture_output=True,
                          text=True).stdout.strip()


def _history(repo: GitRepo) -> None:
    """Commits on `main` past the merge base: a clone of depth 1 has neither that base nor
    the feature branch's parent."""
    repo.checkout("main")
    for i in range(3):
        repo.commit({"later.txt": f"{i}\n"}, f"main moves on {i}")
    repo.checkout("feature")


def shallow(work: Path, repo: GitRepo) -> Path:
    """A clone of depth 1 (every branch's tip only, as CI checkouts make), on the change."""
    _history(repo)
    clone = work / "clone"
    git(work, "clone", "-q", "--depth", "1", "--no-single-branch", f"file://{repo.path}",
         str(clone))
    git(clone, "checkout", "-q", "feature")
    assert git(clone, "rev-parse", "--is-shallow-repository") == "true"
    return clone


def shallow_offline(work: Path, repo: GitRepo) -> Path:
    """The shallow clone, its remote gone: it cannot be deepened."""
    clone = shallow(work, repo)
    git(clone, "remote", "set-url", "origin", str(work / "gone"))
    return clone


def back_online(work: Path, clone: Path) -> None:
    """What the offline clone's user does before following the bot's hint: the remote back."""
    git(clone, "remote", "set-url", "origin", f"file://{work / 'repo'}")


def feature_only(work: Path, repo: GitRepo) -> Path:
    """A clone of the feature branch alone (`--single-branch`): the base's branch never
    fetched, so `origin/main` names nothing here."""
    _history(repo)
    clone = work / "clone"
    git(work, "clone", "-q", "--single-branch", "--branch", "feature", f"file://{repo.path}",
         str(clone))
    return clone


def shallow_feature_only(work: Path, repo: GitRepo) -> Path:
    """What actions/checkout makes by default: the change's branch alone, at depth 1."""
    _history(repo)
    clone = work / "clone"
    git(work, "clone", "-q", "--depth", "1", "--single-branch", "--branch", "feature",
        f"file://{repo.path}", str(clone))
    return clone


def linked_worktree(work: Path, repo: GitRepo) -> Path:
    """The change checked out in a worktree of the user's own (`git worktree add`), the main
    checkout back on `main`: the review runs in the linked one."""
    repo.checkout("main")
    git(repo.path, "worktree", "add", "-q", str(work / "user" / "linked"), "feature")
    return work / "user" / "linked"


def submodule(repo: GitRepo) -> None:
    """A submodule `vendored/` holding Python files: the change moves its pointer to a commit
    that adds an unused import inside it. Those files are the submodule's own repository's:
    reviewing them here would report findings the change does not make in this one."""
    inner = GitRepo(repo.path.parent / "inner")
    inner.commit({"lib.py": "import os\n"})
    repo.git("checkout", "-q", "main")
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner.path),
             "vendored")
    repo.git("commit", "-q", "-m", "the submodule")
    repo.git("checkout", "-q", "feature")
    repo.git("merge", "-q", "--ff-only", "main")
    repo.write({"vendored/lib.py": "import os\nimport re\n"})
    repo.git("-C", "vendored", "-c", "user.email=test@example.invalid", "-c", "user.name=Test",
             "commit", "-q", "-a", "-m", "inside the submodule")
    repo.git("add", "vendored")


def hundred_thousand(repo: GitRepo) -> None:
    """100,000 more files at both revisions (in 100 folders), written through fast-import:
    the change itself stays one line."""
    lines = [b"commit refs/heads/main\ncommitter T <t@example.invalid> 1767225600 +0000\n",
             b"data 5\nbulk\nfrom refs/heads/main^0\n"]
    for i in range(BIG):
        data = b"x = %d\n" % i
        lines.append(b"M 644 inline pkg%03d/m%03d.py\ndata %d\n%s\n"
                     % (i // 1000, i % 1000, len(data), data))
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo.path, check=True,
                   input=b"".join(lines) + b"\n")
    repo.git("merge", "-q", "--ff-only", "main")
