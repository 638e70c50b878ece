"""What the classifier reads of a change besides the findings (pure): which base file each
head file was, each pair's line map, and both revisions' texts.

One value, made where the change is read (`bot.revisions.workspace.read_changes`), carried by a shard's
part (`bot.run.part`), joined again by the publisher (`bot.run.assemble`) and read by the classifier
(`bot.verdicts.classify`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol, TypeVar

from bot.revisions.diff import LineMap, identity_map


@dataclass(frozen=True)
class FileSide:
    """A file's lines at one revision (EOL kept)."""

    lines: tuple[str, ...]

    def text(self, line: int) -> str:
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""


EMPTY = FileSide(())


class Paired(Protocol):
    """One file of a change as the diff names it (`diff.FilePatch`, `model.FileChange`)."""

    @property
    def path(self) -> str: ...  # the head path; the base path when deleted

    @property
    def old_path(self) -> str | None: ...  # None when added

    @property
    def status(self) -> str: ...


def pairing(files: Iterable[Paired]) -> tuple[dict[str, str | None], frozenset[str]]:
    """Head path -> base path (None: new, a copy too) of each file the head has, and the base
    paths the change deleted."""
    pairs: dict[str, str | None] = {}
    deleted: set[str] = set()
    for f in files:
        if f.status == "deleted":
            if f.old_path:
                deleted.add(f.old_path)
            continue
        pairs[f.path] = None if f.status in ("added", "copied") else f.old_path
    return pairs, frozenset(deleted)


class DisagreeError(ValueError):
    """Two pieces of evidence give one path different contents (`Evidence.joined`)."""

    def __init__(self, kind: str, path: str, index: int, first: int) -> None:
        super().__init__(f"{kind}[{path!r}] of part {index} differs from part {first}'s")
        self.kind, self.path, self.index, self.first = kind, path, index, first


V = TypeVar("V", FileSide, LineMap)


@dataclass(frozen=True)
class Evidence:
    """The change's file pairs, line maps (by head path) and texts (by path at each side)."""

    pairs: Mapping[str, str | None] = field(default_factory=dict)  # unlisted: same path
    maps: Mapping[str, LineMap] = field(default_factory=dict)  # unlisted: identical file
    base_files: Mapping[str, FileSide] = field(default_factory=dict)
    head_files: Mapping[str, FileSide] = field(default_factory=dict)
    deleted: frozenset[str] = frozenset()  # base paths the change deleted

    @classmethod
    def of(cls, files: Iterable[Paired], maps: Mapping[str, LineMap],
           base_files: Mapping[str, FileSide], head_files: Mapping[str, FileSide]) -> Evidence:
        pairs, deleted = pairing(files)
        return cls(pairs, maps, base_files, head_files, deleted)

    def base_path(self, head_path: str) -> str | None:
        """The base path of a head file (None: new)."""
        return self.pairs.get(head_path, head_path)

    def reverse(self) -> dict[str, str]:
        """Base path -> head path of the files the head still has."""
        return {base: head for head, base in self.pairs.items() if base is not None}

    def line_map(self, head_path: str) -> LineMap:
        found = self.maps.get(head_path)
        return found if found is not None else identity_map(
            len(self.head_files.get(head_path, EMPTY).lines))

    def side(self, side: str, path: str) -> FileSide:
        return (self.head_files if side == "head" else self.base_files).get(path, EMPTY)

    def sizes(self) -> dict[str, int]:
        """The characters of each file held (the head's, for a path at both revisions)."""
        return {p: sum(len(line) for line in side.lines)
                for files in (self.base_files, self.head_files) for p, side in files.items()}

    def carrying(self, heads: Iterable[str], bases: Iterable[str]) -> Evidence:
        """Only what the classifier reads for findings at these head and base paths: each
        one's file pair, both revisions, and the pair's line map."""
        reverse = self.reverse()
        held = set(heads) | {reverse.get(p, p) for p in bases}
        based = set(bases) | {b for h in held if (b := self.base_path(h)) is not None}
        return replace(self,
                       base_files={p: self.base_files[p] for p in sorted(based)
                                   if p in self.base_files},
                       head_files={p: self.head_files[p] for p in sorted(held)
                                   if p in self.head_files},
                       maps={p: self.maps[p] for p in sorted(held) if p in self.maps})

    def with_unchanged(self, base_files: Mapping[str, FileSide],
                       head_files: Mapping[str, FileSide]) -> Evidence:
        """With files the change left alone (a tool reported on them: importers of changed
        code), each paired with itself line for line."""
        if not base_files and not head_files:
            return self
        return replace(self, base_files={**self.base_files, **base_files},
                       head_files={**self.head_files, **head_files},
                       maps={**{p: identity_map(len(s.lines)) for p, s in head_files.items()},
                             **self.maps})

    @staticmethod
    def joined(parts: Sequence[Evidence], files: Iterable[Paired]) -> Evidence:
        """The parts' files and line maps together, paired as `files` says; a path two parts
        give different contents raises `DisagreeError` (naming the two parts)."""
        base_files = _union([p.base_files for p in parts], "files.base")
        head_files = _union([p.head_files for p in parts], "files.head")
        return Evidence.of(files, _union([p.maps for p in parts], "maps"), base_files, head_files)


def _union(each: Sequence[Mapping[str, V]], kind: str) -> dict[str, V]:
    out: dict[str, V] = {}
    first: dict[str, int] = {}
    for index, mapping in enumerate(each):
        for path, value in mapping.items():
            if out.setdefault(path, value) != value:
                raise DisagreeError(kind, path, index, first[path])
            first.setdefault(path, index)
    return out
