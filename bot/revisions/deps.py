"""The dependencies the user installed in their checkout, made visible in the bot's worktrees.

`npm ci` (or `pip install` into a repo-local virtualenv) fills untracked, ignored folders of
the user's working tree; a worktree of another revision has none of them, and a tool whose
configuration loads a plugin fails there. Each worktree gets a symbolic link to the user's
folder wherever it has nothing at that path. Only folders tools read are linked: build outputs
tools write (cargo's `target/`) are not shared, and Go and Cargo caches live outside the
repository (GOPATH, GOMODCACHE, CARGO_HOME) and reach the tools through the environment.

What is installed is part of every cached answer's key (`stamp`): a plugin or a stub package
upgraded must not leave the findings of its old version in the cache.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath

from bot import git

VENVS = (".venv", "venv", "env")  # where bot.lsp.servers looks for the repository's Python
# The state a package manager keeps inside the folder it installed: npm, pnpm, yarn 1, yarn 2+.
NODE_STATE = (".package-lock.json", ".modules.yaml", ".yarn-integrity", ".yarn-state.yml")
# What names an installed Python distribution and its version (`name-1.2.dist-info`).
DIST_SUFFIXES = (".dist-info", ".egg-info", ".egg-link")


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


def stamp(repo: Path, folders: Sequence[str]) -> str:
    """A digest of what is installed in `folders` of `repo` (from `installed`): the same for
    the same packages at the same versions, whenever and wherever they were installed (so CI's
    fresh install of an unchanged lockfile keeps its cache)."""
    digest = hashlib.sha256()
    for rel in sorted(folders):
        digest.update(f"{rel}\0".encode())
        folder = repo / rel
        parts = _node_modules(folder) if folder.name == "node_modules" else _venv(folder)
        for name, content in parts:
            digest.update(name.encode("utf-8", "surrogateescape") + b"\0" + content + b"\0")
    return digest.hexdigest()[:32]


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b"(unreadable)"


def _node_modules(folder: Path) -> list[tuple[str, bytes]]:
    """The package manager's own record of the folder, else each top-level package's
    manifest (its version)."""
    state = [(name, _read(folder / name)) for name in NODE_STATE if (folder / name).is_file()]
    if state:
        return state
    found = []
    for entry in _names(folder):
        inner = [f"{entry}/{n}" for n in _names(folder / entry)] if entry.startswith("@") else [entry]
        found += [(pkg, _read(folder / pkg / "package.json")) for pkg in inner]
    return found


def _venv(folder: Path) -> list[tuple[str, bytes]]:
    found = [("pyvenv.cfg", _read(folder / "pyvenv.cfg"))]
    for site in sorted(folder.glob("lib/python*/site-packages")):
        for name in _names(site):
            if name.endswith(DIST_SUFFIXES):
                found.append((name, b""))
            elif name.endswith(".pth"):  # read: it names the folder an editable install adds
                found.append((name, _read(site / name)))
    return found


def _names(folder: Path) -> list[str]:
    try:
        return sorted(os.listdir(folder))
    except OSError:
        return []
