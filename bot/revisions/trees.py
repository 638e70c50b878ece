"""Views of one revision's files: in a checkout on disk, or straight from git with no checkout.

Both answer the same questions the same way (which files a tool's unit covers, which config
files exist, the git blob id of each), so a cache key computed from git matches the one a run
on the checkout wrote, and a re-run whose keys all hit never needs the checkout.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from bot import git
from bot.analyzer import TreeView
from bot.cache import file_blob

# Folders never walked when listing a package's/project's files.
SKIP_DIRS = frozenset({".git", "node_modules", "target", ".venv", "venv", "__pycache__",
                       ".mypy_cache", ".ruff_cache", ".tox", "testdata"})


def skipped(name: str) -> bool:
    return name.startswith((".", "_")) or name in SKIP_DIRS


def _norm(path: str) -> str:
    return path.removeprefix("./") or "."


def suffix(name: str) -> str:
    """A file name's suffix as `PurePath.suffix` gives it ("" for ".go" or "a.")."""
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


@dataclass(frozen=True)
class DiskView:
    """A checkout; blob ids hashed from the files' bytes (a `bot.analyzer.TreeView`).

    Each file is hashed once per view: a package's key covers its whole module, so the keys
    of N changed packages would otherwise read the module N times. A view lives for one
    collect, whose keys are all taken before its tool runs."""

    root: Path
    _known: dict[str, str | None] = field(default_factory=dict, compare=False, repr=False)

    def is_file(self, path: str) -> bool:
        return (self.root / path).is_file()

    def blobs(self, paths: Sequence[str]) -> dict[str, str]:
        for path in paths:
            if path not in self._known:
                full = self.root / path
                self._known[path] = file_blob(full) if full.is_file() else None
        return {p: blob for p in paths if (blob := self._known[p]) is not None}

    def walk(self, top: str, suffixes: frozenset[str], names: frozenset[str] = frozenset(),
             stop: str | None = None) -> list[str]:
        # os.scandir: the folder listing says what is a folder, so a module of 20,000 files is
        # walked without a stat per entry.
        out: list[str] = []
        start = _norm(top)
        pending = [(str(self.root / start), "" if start == "." else start + "/")]
        while pending:
            folder, rel = pending.pop()
            try:
                with os.scandir(folder) as listing:
                    entries = list(listing)
            except OSError:
                continue
            for entry in entries:
                name = entry.name
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    is_dir = False
                if is_dir:
                    if not skipped(name) and not (stop and os.path.isfile(f"{entry.path}/{stop}")):
                        pending.append((entry.path, f"{rel}{name}/"))
                elif suffix(name) in suffixes or name in names:
                    out.append(rel + name)
        return sorted(out)


@dataclass
class GitView:
    """A revision in git, plus the root-level config files the head lends the base
    (`overlay`: name -> the head's blob id, None where the head has none)."""

    repo: Path
    rev: str
    overlay: Mapping[str, str | None] = field(default_factory=dict)
    _known: dict[str, str | None] = field(default_factory=dict)
    _listing: dict[str, str] | None = None
    _files: list[str] | None = None

    @staticmethod
    def _key(entry: str | None) -> str | None:
        # Regular files key by their blob id, as `file_blob` hashes them from disk; a symlink's
        # blob is its target's name, so it gets a key no file shares.
        if entry is None:
            return None
        mode, sha = entry.split()
        return sha if mode.startswith("100") else f"link:{sha}"

    def _lookup(self, names: Iterable[str]) -> None:
        missing = sorted({n for n in names if n not in self._known and n not in self.overlay})
        if not missing:
            return
        if self._listing is not None:
            found = {n: self._listing[n] for n in missing if n in self._listing}
        else:
            found = git.tree_blobs(self.repo, self.rev, missing)
        for name in missing:
            self._known[name] = self._key(found.get(name))

    def _blob(self, name: str) -> str | None:
        return self.overlay[name] if name in self.overlay else self._known.get(name)

    def is_file(self, path: str) -> bool:
        # Asked for many folders' markers while finding units: one full listing beats a git
        # call per question.
        name = _norm(path)
        if name in self.overlay:
            return self.overlay[name] is not None
        self.files()
        return self._known.get(name) is not None

    def blobs(self, paths: Sequence[str]) -> dict[str, str]:
        wanted = {p: _norm(p) for p in paths}
        self._lookup(wanted.values())
        return {given: blob for given, name in wanted.items()
                if (blob := self._blob(name)) is not None}

    def listing(self) -> dict[str, str]:
        """Every blob of the revision as git lists it ({path: "<mode> <blob id>"}, overlay not
        applied): one `git ls-tree -r`, read once."""
        if self._listing is None:
            self._listing = git.tree_blobs(self.repo, self.rev, [], recursive=True)
            for name, entry in self._listing.items():
                self._known.setdefault(name, self._key(entry))
        return self._listing

    def files(self) -> list[str]:
        """Every file of the revision, overlay applied."""
        if self._files is None:
            present = {n for n, blob in self.overlay.items() if blob is not None}
            self._files = sorted((set(self.listing()) - set(self.overlay)) | present)
        return self._files

    def walk(self, top: str, suffixes: frozenset[str], names: frozenset[str] = frozenset(),
             stop: str | None = None) -> list[str]:
        everything = self.files()
        markers = {p.rpartition("/")[0] or "." for p in everything
                   if stop and p.rpartition("/")[2] == stop}
        top = _norm(top)
        prefix = "" if top == "." else top + "/"
        out = []
        for path in everything:
            if not path.startswith(prefix):
                continue
            folder, _, name = path[len(prefix):].rpartition("/")
            if suffix(name) not in suffixes and name not in names:
                continue
            if folder:
                folders = folder.split("/")
                if any(skipped(f) for f in folders):
                    continue
                if markers and any(prefix + "/".join(folders[:i + 1]) in markers
                                   for i in range(len(folders))):
                    continue
            out.append(path)
        return out


def nearest_dir_with(view: TreeView, path: str, markers: Sequence[str]) -> str | None:
    """The closest folder (repo-relative, "." for the root) above `path` holding a marker."""
    parts = PurePosixPath(path).parent.parts
    for depth in range(len(parts), -1, -1):
        folder = "/".join(parts[:depth]) or "."
        if any(view.is_file(f"{folder}/{m}") for m in markers):
            return folder
    return None
