"""Review results built by hand for forge tests (the core review has its own tests)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from bot import git
from bot.model import (
    Edit,
    FileChange,
    Finding,
    Fix,
    ReviewResult,
    Scope,
    Severity,
    Span,
    ToolRun,
    Verdict,
    Where,
)
from bot.positions import split_lines

MERGE_BASE = "b" * 40


def finding(path: str, line: int, rule: str = "F841", message: str = "unused variable",
            severity: Severity = Severity.ERROR, fix: tuple[tuple[int, int, int, int, str], ...] = (),
            end_line: int | None = None) -> Finding:
    edits = tuple(Edit(path, Span(*e[:4]), e[4]) for e in fix)
    return Finding("ruff", rule, severity, message, path,
                   Span(line, 1, end_line or line, 4),
                   url=f"https://docs.astral.sh/ruff/rules/{rule.lower()}/",
                   fix=Fix("Remove it", edits) if edits else None)


def verdict(f: Finding, fp: str, scope: Scope = "introduced", where: Where | None = "diff"
            ) -> Verdict:
    return Verdict(f, scope, fp, where=where if scope == "introduced" else None)


def change(path: str, hunk: Iterable[int], status: str = "modified") -> FileChange:
    lines = frozenset(hunk)
    return FileChange(path, path, status, changed_lines=lines, hunk_lines=lines)  # type: ignore[arg-type]


def result(head: str, verdicts: Iterable[Verdict], changes: Iterable[FileChange],
           fixed: Iterable[Verdict] = ()) -> ReviewResult:
    return ReviewResult("main", MERGE_BASE, head, (ToolRun("ruff", "0.17.6", "ok"),),
                        tuple(verdicts), tuple(fixed), tuple(changes))


def texts(repo: Path, head: str, paths: Iterable[str]) -> dict[str, list[str]]:
    out = {}
    for path in paths:
        blob = git.show(repo, head, path)
        if blob is not None:
            out[path] = split_lines(blob.decode("utf-8", "replace"))
    return out
