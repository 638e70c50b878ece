"""The git reads of a sweep: the range's commits, blame, authors, and the synthetic commits
that let the verdict engine compare two configurations on the same code."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from bot import git, proc
from bot.errors import BotError


def is_ancestor(repo: Path, older: str, newer: str) -> bool:
    return git.git(repo, "merge-base", "--is-ancestor", older, newer, check=False).returncode == 0


def commits(repo: Path, base: str, head: str) -> list[str]:
    """The commits after `base` up to `head`, oldest first, parents before children."""
    out = git.git(repo, "rev-list", "--reverse", "--topo-order", f"{base}..{head}").out
    return out.split()


def blame(repo: Path, head: str, path: str, line: int) -> str | None:
    """The commit that last wrote `line` of `path` at `head`."""
    result = git.git(repo, "blame", "--porcelain", "-L", f"{line},{line}", head, "--", path,
                     check=False)
    if result.returncode != 0 or not result.out:
        return None
    first = result.out.split(maxsplit=1)[0]
    return first if len(first) >= 40 else None


def author(repo: Path, sha: str) -> str | None:
    result = git.git(repo, "log", "-1", "--format=%an", sha, check=False)
    return result.out.strip() or None if result.returncode == 0 else None


def changed_paths(repo: Path, base: str, head: str, names: Sequence[str]) -> list[str]:
    """Which of `names` (repository-relative) differ between the two commits."""
    if not names:
        return []
    out = git.git(repo, "diff", "--name-only", "--no-renames", base, head, "--", *names).out
    return sorted(set(out.split("\n")) - {""})


def tree_commit(repo: Path, tree_of: str, overlay: Mapping[str, str | None], parent: str | None
                ) -> str:
    """An unreferenced commit holding `tree_of`'s tree with `overlay` (path -> blob, None:
    removed) applied, on `parent`. Nothing in the checkout or the refs changes."""
    with tempfile.TemporaryDirectory(prefix="reviewbot-index-") as folder:
        env_index = os.path.join(folder, "index")
        tree = _tree(repo, tree_of, overlay, env_index)
    args = ["commit-tree", tree, "-m", "reviewbot sweep: configuration probe"]
    if parent:
        args += ["-p", parent]
    return _with_identity(repo, args)


def empty_commit(repo: Path) -> str:
    """A root commit with nothing in it: a base against which every file is added."""
    tree = git.git(repo, "mktree", stdin=b"").out.strip()  # git's empty tree, in any hash
    return _with_identity(repo, ["commit-tree", tree, "-m", "reviewbot sweep: empty"])


def blob_of(repo: Path, rev: str, path: str) -> str | None:
    result = git.git(repo, "rev-parse", "--verify", "--quiet", f"{rev}:{path}", check=False)
    return result.out.strip() or None if result.returncode == 0 else None


def _tree(repo: Path, rev: str, overlay: Mapping[str, str | None], index: str) -> str:
    env = {"GIT_INDEX_FILE": index}  # a private index: the user's stays as it is
    _git(repo, env, "read-tree", rev)
    for path, blob in sorted(overlay.items()):
        if blob is None:
            _git(repo, env, "update-index", "--force-remove", "--", path)
        else:
            _git(repo, env, "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}")
    return _git(repo, env, "write-tree")


def _with_identity(repo: Path, args: list[str]) -> str:
    # A fixed identity and date: the same probe is the same commit, so the cache reuses it.
    stamp = "2000-01-01T00:00:00Z"
    return _git(repo, {"GIT_AUTHOR_NAME": "reviewbot", "GIT_AUTHOR_EMAIL": "reviewbot@localhost",
                       "GIT_COMMITTER_NAME": "reviewbot", "GIT_COMMITTER_EMAIL": "reviewbot@localhost",
                       "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}, *args)


def _git(repo: Path, env: Mapping[str, str], *args: str) -> str:
    result = proc.run(["git", "-c", "safe.directory=*", *args], cwd=repo,
                      env=env, timeout=git.GIT_TIMEOUT)
    if result.returncode != 0:
        raise BotError(f"git {' '.join(args[:2])} failed: {result.err_tail(3)}")
    return result.out.strip()
