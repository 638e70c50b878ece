"""Staged rewrites: a plan records every edit and each file's content hash; apply is all-or-nothing.

Apply re-reads every file and compares it with the hash taken at staging. One mismatch (edited,
deleted, reformatted, line endings changed) rejects the whole plan before anything is written.
Each file is then written to a temporary file beside it and renamed over it; if a write fails
part-way, the files already replaced get their original bytes back.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot import atomic
from bot.errors import BotError, Exit
from bot.model import Span
from bot.structural.rewrite import ByteEdit, apply_edits, eol_of
from bot.structural.scan import FileResult
from bot.structural.search import Positions

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


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- staging -------------------------------------------------------------------------------


def planned_file(result: FileResult, root: Path) -> PlannedFile:
    rw = result.rewrite
    if rw is None:
        raise ValueError(f"{result.file.path}: no rewrite to plan")
    staged = result.source
    pos = Positions(staged)
    by_match = {(m.start, m.end): m for m in result.matches}
    edits = []
    for e in rw.edits:
        m = by_match.get((e.match_start, e.match_end))
        binds = {k: c.text for k, c in m.captures.items()} if m is not None else {}
        edits.append(PlannedEdit(e.start, e.end, pos.span(e.start, e.end),
                                 staged[e.start:e.end].decode("utf-8", errors="replace"),
                                 e.new.decode("utf-8", errors="replace"), binds))
    rel = Path(os.path.relpath(result.file.abspath, root)).as_posix()
    return PlannedFile(rel, sha256(staged), len(staged), sha256(rw.new_source), eol_of(staged),
                       tuple(edits))


def build(results: Sequence[FileResult], root: Path, lang: str, pattern: str,
          rewrite: str) -> Plan:
    """The plan for `results`; refuses (BotError) when a rewritten file would not parse."""
    broken = [Refusal(r.file.path, r.rewrite.error) for r in results
              if r.rewrite is not None and r.rewrite.error]
    if broken:
        lines = "\n".join(f"  {b.path}: {b.reason}" for b in broken)
        raise BotError(f"plan refused: {len(broken)} rewritten file(s) would not parse:\n{lines}",
                       Exit.GATE)
    files = tuple(planned_file(r, root) for r in results if r.rewrite and r.rewrite.edits)
    skipped = sum(r.rewrite.skipped for r in results if r.rewrite is not None)
    return Plan(str(root), lang, pattern, rewrite, files, skipped)


# -- serialisation -------------------------------------------------------------------------


def to_json(plan: Plan) -> dict[str, Any]:
    return {
        "version": PLAN_VERSION,
        "tool": "reviewbot ast-edit",
        "root": plan.root,
        "lang": plan.lang,
        "pattern": plan.pattern,
        "rewrite": plan.rewrite,
        "count": plan.count,
        "skipped_overlaps": plan.skipped_overlaps,
        "files": [
            {
                "path": f.path,
                "sha256": f.sha256,
                "size": f.size,
                "sha256_after": f.sha256_after,
                "eol": "crlf" if f.eol == "\r\n" else "lf",
                "edits": [
                    {"start": e.start, "end": e.end,
                     "range": {"start": {"line": e.span.line, "column": e.span.column},
                               "end": {"line": e.span.end_line, "column": e.span.end_column}},
                     "old": e.old, "new": e.new, "bindings": e.bindings}
                    for e in f.edits
                ],
            }
            for f in plan.files
        ],
    }


def from_json(data: dict[str, Any]) -> Plan:
    if data.get("version") != PLAN_VERSION:
        raise BotError(f"plan version {data.get('version')!r} is not supported "
                       f"(this reviewbot writes version {PLAN_VERSION})")
    try:
        files = tuple(
            PlannedFile(
                f["path"], f["sha256"], int(f["size"]), f["sha256_after"],
                "\r\n" if f.get("eol") == "crlf" else "\n",
                tuple(
                    PlannedEdit(int(e["start"]), int(e["end"]), _span(e["range"]), e["old"],
                                e["new"], dict(e.get("bindings", {})))
                    for e in f["edits"]
                ),
            )
            for f in data["files"]
        )
        return Plan(data["root"], data["lang"], data["pattern"], data["rewrite"], files,
                    int(data.get("skipped_overlaps", 0)))
    except (KeyError, TypeError, ValueError) as exc:
        raise BotError(f"malformed plan: {exc!r}") from exc


def _span(r: dict[str, Any]) -> Span:
    s, e = r["start"], r["end"]
    return Span(int(s["line"]), int(s["column"]), int(e["line"]), int(e["column"]))


def save(plan: Plan, path: Path) -> None:
    text = json.dumps(to_json(plan), indent=2, ensure_ascii=False) + "\n"
    atomic.write(path, text.encode(), sync=True)


def load(path: Path) -> Plan:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise BotError(f"{path}: no such plan file") from exc
    except (OSError, ValueError) as exc:
        raise BotError(f"{path}: cannot read the plan: {exc}") from exc
    if not isinstance(data, dict):
        raise BotError(f"{path}: not a reviewbot plan")
    return from_json(data)


# -- applying ------------------------------------------------------------------------------


def _why_moved(now: bytes, staged: PlannedFile) -> str:
    if len(now) == staged.size and sha256(now) == staged.sha256:
        return ""
    if staged.eol == "\n" and eol_of(now) == "\r\n":
        return "changed since staging (line endings are now CRLF)"
    if staged.eol == "\r\n" and eol_of(now) == "\n":
        return "changed since staging (line endings are now LF)"
    return f"changed since staging ({staged.size} bytes then, {len(now)} now)"


def check(plan: Plan) -> tuple[dict[str, bytes], list[Refusal]]:
    """Current bytes of every planned file, and the files that moved since staging."""
    root = Path(plan.root)
    current: dict[str, bytes] = {}
    moved: list[Refusal] = []
    for f in plan.files:
        try:
            now = (root / f.path).read_bytes()
        except FileNotFoundError:
            moved.append(Refusal(f.path, "deleted since staging"))
            continue
        except OSError as exc:
            moved.append(Refusal(f.path, f"unreadable: {exc.strerror or exc}"))
            continue
        why = _why_moved(now, f)
        if why:
            moved.append(Refusal(f.path, why))
        current[f.path] = now
    return current, moved


def apply(plan: Plan, replace: atomic.Replace = os.replace) -> list[str]:
    """Write every planned file or none; returns the paths written. `replace` is the rename
    step (a seam for tests that make a write fail part-way)."""
    current, moved = check(plan)
    if moved:
        lines = "\n".join(f"  {m.path}: {m.reason}" for m in moved)
        raise BotError(f"plan rejected, nothing written: {len(moved)} file(s) moved since "
                       f"staging:\n{lines}\nstage the plan again", Exit.GATE)
    root = Path(plan.root)
    new: dict[str, bytes] = {}
    for f in plan.files:
        edits = [ByteEdit(e.start, e.end, e.new.encode(), e.start, e.end) for e in f.edits]
        out = apply_edits(current[f.path], edits)
        if sha256(out) != f.sha256_after:
            raise BotError(f"plan rejected, nothing written: {f.path}: its edits do not produce "
                           "the staged result (the plan file was altered)", Exit.GATE)
        new[f.path] = out
    written: list[str] = []
    try:
        for f in plan.files:
            atomic.write(root / f.path, new[f.path], sync=True, replace=replace)
            written.append(f.path)
    except OSError as exc:
        failed = _restore(root, written, current)
        note = f"; could not restore {', '.join(failed)}" if failed else ""
        raise BotError(f"writing {f.path} failed ({exc.strerror or exc}); restored "
                       f"{len(written) - len(failed)} file(s) already written{note}",
                       Exit.GATE) from exc
    return written


def _restore(root: Path, written: list[str], original: dict[str, bytes]) -> list[str]:
    failed: list[str] = []
    for rel in reversed(written):
        try:
            atomic.write(root / rel, original[rel], sync=True)
        except OSError:
            failed.append(rel)
    return failed

