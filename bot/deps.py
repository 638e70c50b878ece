"""The dependencies the user installed in their checkout, made visible in the bot's worktrees.

`npm ci` (or `pip install` into a repo-local virtualenv) fills untracked, ignored folders of
the user's working tree; a worktree of another revision has none of them, and a tool whose
configuration loads a plugin fails there. Each worktree gets a symbolic link to the user's
folder wherever it has nothing at that path. Only folders tools read are linked: build outputs
tools write (cargo's `target/`) are not shared, and Go and Cargo caches live outside the
repository (GOPATH, GOMODCACHE, CARGO_HOME) and reach the tools through the environment.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from bot import git

VENVS = (".venv", "venv", "env")  # where bot.lsp.servers looks for the repository's Python


def installed(repo: Path) -> list[str]:
    """Repo-relative POSIX paths of the dependency folders installed in `repo`'s working tree:
    the `node_modules` next to every tracked package.json, and a virtualenv at the root."""
    found: list[str] = []
    for manifest in git.ls_files(repo, ":(glob)**/package.json"):
        folder = PurePosixPath(manifest).parent / "node_modules"
        if "node_modules" not in folder.parent.parts and (repo / folder).is_dir():
            found.append(folder.as_posix())
    found += [name for name in VENVS if (repo / name / "pyvenv.cfg").is_file()]
    return sorted(set(found))


def link(repo: Path, worktree: Path, folders: Iterable[str]) -> list[str]:
    """Link each of `folders` of `repo` into `worktree` where the worktree has the parent
    folder (the package exists at that revision) and nothing at the path itself (a tracked,
    vendored folder wins). Returns what was linked."""
    made = []
    for rel in folders:
        target = worktree / rel
        if target.parent.is_dir() and not os.path.lexists(target):
            os.symlink(repo / rel, target, target_is_directory=True)
            made.append(rel)
    return made
