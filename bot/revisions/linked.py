"""A checkout of the base made from the head's: hard links for the files both revisions share,
writes only for the ones that differ.

Checking out a whole tree writes every file; on some disks that is a millisecond a file, most
of a first review. A hard link costs almost nothing, and a review changes few files. Safe only
because the tools run on this checkout never write into existing files: manifests and lock
files, which package tools may rewrite in place, are always real copies, and the pipeline uses
this only when every tool it runs says it is read-only (see `Checkouts.base`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from bot import git
from bot.errors import CannotLink

# Files a package manager or build tool may rewrite in place: never shared with the head.
ALWAYS_COPIED = frozenset({
    "Cargo.toml", "Cargo.lock", "go.mod", "go.sum", "go.work", "go.work.sum", "package.json",
    "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lockb",
    "pyproject.toml", "uv.lock", "poetry.lock", "Pipfile.lock", "requirements.txt", "setup.cfg",
})


@dataclass(frozen=True)
class LinkPlan:
    """The base's files: linked from the head's, or written from git."""

    links: list[str] = field(default_factory=list)  # the same at both revisions: the head's
    writes: list[str] = field(default_factory=list)  # checked out from git


def plan(base: Mapping[str, str], head: Mapping[str, str], copied: frozenset[str]) -> LinkPlan:
    """From `git ls-tree -r` listings ({path: "<mode> <blob>"}) of both revisions: which base
    files can be linked from the head's checkout and which must be written. `copied` names
    (base names or paths) are always written."""
    out = LinkPlan()
    for path, entry in sorted(base.items()):
        if head.get(path) == entry and path not in copied and PurePosixPath(path).name not in copied:
            out.links.append(path)
        else:
            out.writes.append(path)
    return out


def materialize(rev: str, head_root: Path, where: Path, todo: LinkPlan) -> None:
    """Fill `where` (an empty worktree of `rev` made with --no-checkout) per `todo`: links
    first, then one `git checkout-index` for the rest."""
    made: set[Path] = set()

    def parent(path: Path) -> None:
        if path.parent not in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            made.add(path.parent)

    writes = list(todo.writes)
    for rel in todo.links:
        target = where / rel
        parent(target)
        try:
            os.link(head_root / rel, target, follow_symlinks=False)
        except FileNotFoundError:
            writes.append(rel)  # not in the head's working tree (sparse, skip-worktree)
        except OSError as exc:
            raise CannotLink(f"{exc.strerror}: {head_root / rel}") from exc
    git.checkout_paths(where, rev, sorted(writes))
