"""Staged rewrites: a plan records every edit and each file's content hash; apply is all-or-nothing.

Apply re-reads every file and compares it with the hash taken at staging. One mismatch (edited,
deleted, reformatted, line endings changed) rejects the whole plan before anything is written.
Paths were checked by their text when the plan was read; before anything is written they are
checked again on disk, so a symbolic link cannot lead a write out of the root. Each file is then
written to a temporary file beside it and renamed over it; if a write fails part-way, the files
already replaced get their original bytes back.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

from bot import atomic
from bot.errors import BotError, EditConflict, Exit
from bot.positions import LineIndex
from bot.render.quoting import quote_path
from bot.structural.planjson import from_json, load, save, to_json
from bot.structural.planpath import containment_problem, root_problem, stage_problem
from bot.structural.plantypes import PLAN_VERSION, Plan, PlannedEdit, PlannedFile, Refusal
from bot.structural.rewrite import ByteEdit, apply_byte_edits, eol_of
from bot.structural.scan import FileResult

__all__ = ["PLAN_VERSION", "Plan", "PlannedEdit", "PlannedFile", "Refusal", "apply", "build",
           "check", "from_json", "load", "save", "to_json", "unsafe", "within"]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- staging -------------------------------------------------------------------------------


def planned_file(result: FileResult, root: Path) -> PlannedFile:
    rw = result.rewrite
    if rw is None:
        raise ValueError(f"{result.file.path}: no rewrite to plan")
    staged = result.source
    pos = LineIndex.of_bytes(staged)
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
        lines = "\n".join(f"  {quote_path(b.path)}: {b.reason}" for b in broken)
        raise BotError(f"plan refused: {len(broken)} rewritten file(s) would not parse:\n{lines}",
                       Exit.GATE)
    files = tuple(planned_file(r, root) for r in results if r.rewrite and r.rewrite.edits)
    unfit = [Refusal(f.path, why) for f in files if (why := stage_problem(root, f.path))]
    if unfit:
        lines = "\n".join(f"  {quote_path(u.path)}: {u.reason}" for u in unfit)
        raise BotError(f"plan refused, nothing staged: {len(unfit)} file(s) could not be "
                       f"applied from here:\n{lines}", Exit.USAGE)
    skipped = sum(r.rewrite.skipped for r in results if r.rewrite is not None)
    return Plan(str(root), lang, pattern, rewrite, files, skipped)


# -- applying ------------------------------------------------------------------------------


def _why_moved(now: bytes, staged: PlannedFile) -> str:
    if len(now) == staged.size and sha256(now) == staged.sha256:
        return ""
    if staged.eol == "\n" and eol_of(now) == "\r\n":
        return "changed since staging (line endings are now CRLF)"
    if staged.eol == "\r\n" and eol_of(now) == "\n":
        return "changed since staging (line endings are now LF)"
    return f"changed since staging ({staged.size} bytes then, {len(now)} now)"


def unsafe(plan: Plan) -> list[Refusal]:
    """Planned paths that, on disk, lead out of the root or to something not a regular file."""
    root = Path(plan.root)
    found = [Refusal(f.path, why) for f in plan.files
             if (why := containment_problem(root, f.path)) is not None]
    return found


def within(plan: Plan, cwd: Path, source: str = "plan") -> None:
    """Refuse (BotError, Exit.USAGE) a plan whose root is not `cwd` or inside it."""
    problem = root_problem(Path(plan.root), cwd)
    if problem:
        raise BotError(f"{source}: root: {problem}; nothing written", Exit.USAGE)


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
    bad = unsafe(plan)
    if bad:
        lines = "\n".join(f"  {quote_path(b.path)}: {b.reason}" for b in bad)
        raise BotError(f"plan refused, nothing written: {len(bad)} path(s) cannot be written "
                       f"safely:\n{lines}", Exit.USAGE)
    current, moved = check(plan)
    if moved:
        lines = "\n".join(f"  {quote_path(m.path)}: {m.reason}" for m in moved)
        raise BotError(f"plan rejected, nothing written: {len(moved)} file(s) moved since "
                       f"staging:\n{lines}\nstage the plan again", Exit.GATE)
    root = Path(plan.root)
    new: dict[str, bytes] = {}
    for f in plan.files:
        edits = [ByteEdit(e.start, e.end, e.new.encode(), e.start, e.end) for e in f.edits]
        try:
            out: bytes | None = apply_byte_edits(current[f.path], edits)
        except EditConflict:
            out = None  # overlapping edits cannot be the staged result
        if out is None or sha256(out) != f.sha256_after:
            raise BotError(f"plan rejected, nothing written: {quote_path(f.path)}: its edits do "
                           "not produce the staged result (the plan file was altered)", Exit.GATE)
        new[f.path] = out
    written: list[str] = []
    try:
        for f in plan.files:
            atomic.write(root / f.path, new[f.path], sync=True, replace=replace)
            written.append(f.path)
    except OSError as exc:
        failed = _restore(root, written, current)
        note = f"; could not restore {', '.join(failed)}" if failed else ""
        raise BotError(f"writing {quote_path(f.path)} failed ({exc.strerror or exc}); restored "
                       f"{len(written) - len(failed)} file(s) already written{note}",
                       Exit.GATE) from exc
    except BaseException:  # SIGTERM or Ctrl-C between two writes: all or nothing still
        _restore(root, written, current)
        raise
    return written


def _restore(root: Path, written: list[str], original: dict[str, bytes]) -> list[str]:
    failed: list[str] = []
    for rel in reversed(written):
        try:
            atomic.write(root / rel, original[rel], sync=True)
        except OSError:
            failed.append(rel)
    return failed

