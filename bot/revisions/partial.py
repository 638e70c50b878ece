"""The base for tools that read one file at a time: the changed files' folders, not the
repository.

Such a tool reads the files it is given, the configuration above them and, at most, their
neighbours (ruff's isort looks for first-party modules, INP001 for an `__init__.py`, an ESLint
plugin resolves imports). So the tree keeps the base's layout exactly, at the cost of the
change rather than the repository's size: every folder above a changed path is a real folder;
in it, the changed files are written from git, the unchanged ones are hard links to the head's
(the same bytes at both revisions), and each unchanged subfolder is a symbolic link to the
head's. Safe only for tools that never write into their checkout, as `bot.revisions.linked`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from bot import git
from bot.errors import CannotLink


def folders_above(paths: Iterable[str]) -> set[str]:
    """Every folder holding one of `paths` or above one, repo-relative ("." the root)."""
    out = {"."}
    for path in paths:
        parts = PurePosixPath(path).parts[:-1]
        out.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
    return out


@dataclass(frozen=True)
class Plan:
    """How the changed files' base is made: folders, links and files written from git."""

    folders: list[str] = field(default_factory=list)  # made as real folders, parents first
    links: list[tuple[str, str]] = field(default_factory=list)  # unchanged: the head's, linked
    shared: list[str] = field(default_factory=list)  # unchanged folders: the head's, linked
    writes: list[tuple[str, str]] = field(default_factory=list)  # (path, "<mode> <blob>") from git
    empty: list[str] = field(default_factory=list)  # submodules: an empty folder, as a checkout


def plan(entries: Sequence[git.TreeEntry], changed: Iterable[str], left_out: Iterable[str]
         ) -> Plan:
    """From the base's entries of every folder above the `changed` paths (`git.folder_entries`),
    what to make. `left_out` (the head's configuration, carried over afterwards) is not made."""
    changed, left_out = set(changed), set(left_out)
    real = folders_above([*changed, *left_out])
    # A folder of the head that is a file (or a symbolic link) at the base is not made.
    files = {e.path for e in entries if e.kind != "tree" and e.path in real}
    made = [f for f in real if not files & {f, *folders_above([f])}]
    out = Plan(folders=sorted(made, key=lambda f: (f.count("/"), f)))
    for entry in sorted(entries, key=lambda e: e.path):
        if entry.path in left_out:
            continue
        if entry.kind == "tree":
            if entry.path not in real:
                out.shared.append(entry.path)
        elif entry.kind == "commit":
            out.empty.append(entry.path)
        elif entry.path in changed:
            out.writes.append((entry.path, f"{entry.mode} {entry.sha}"))
        else:
            out.links.append((entry.path, f"{entry.mode} {entry.sha}"))
    return out


def materialize(repo: Path, head_root: Path, where: Path, todo: Plan, index: Path) -> None:
    """Make `where` (absent) per `todo`; `index` is a scratch file for git's checkout of the
    written files (end-of-line conversion and filters as a checkout does them). CannotLink
    when the head lacks an unchanged folder (a sparse checkout): the caller checks out whole."""
    for folder in todo.folders:
        (where / folder).mkdir(exist_ok=folder == ".")
    writes = list(todo.writes)
    for rel, entry in todo.links:
        try:
            os.link(head_root / rel, where / rel, follow_symlinks=False)
        except FileNotFoundError:
            writes.append((rel, entry))  # not in the head's working tree (sparse, skip-worktree)
        except OSError:  # another disk, or links refused: the name, not the inode
            os.symlink(head_root / rel, where / rel)
    for rel in todo.shared:
        source = head_root / rel
        if not source.is_dir():
            raise CannotLink(f"{source}: not in the head's checkout")
        os.symlink(source, where / rel, target_is_directory=True)
    for rel in todo.empty:
        (where / rel).mkdir()
    if writes:
        attributes = [(rel, entry) for rel, entry in todo.links
                      if PurePosixPath(rel).name == ".gitattributes"]
        git.checkout_entries(repo, where, index, writes, attributes)
