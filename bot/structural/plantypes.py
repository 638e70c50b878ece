"""The value types of a staged plan: every edit, each file's hashes, and why a file is refused."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.model import Span

PLAN_VERSION = 1


@dataclass(frozen=True)
class PlannedEdit:
    start: int  # byte offsets into the staged content
    end: int
    span: Span  # of the replaced range in the staged content
    old: str
    new: str
    bindings: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class PlannedFile:
    path: str  # relative to the plan's root, POSIX
    sha256: str  # content at staging
    size: int
    sha256_after: str  # content the edits produce
    eol: str
    edits: tuple[PlannedEdit, ...]


@dataclass(frozen=True)
class Plan:
    root: str  # absolute directory the paths are relative to
    lang: str
    pattern: str
    rewrite: str
    files: tuple[PlannedFile, ...]
    skipped_overlaps: int = 0

    @property
    def count(self) -> int:
        return sum(len(f.edits) for f in self.files)


@dataclass(frozen=True)
class Refusal:
    path: str
    reason: str
