"""Text and JSON shapes of matches and plans for the command line."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

from bot.model import Span
from bot.render.quoting import quote_path
from bot.structural.plan import Plan, PlannedFile
from bot.structural.search import Match


def span_json(span: Span) -> dict[str, dict[str, int]]:
    return {"start": {"line": span.line, "column": span.column},
            "end": {"line": span.end_line, "column": span.end_column}}


def match_json(m: Match) -> dict[str, Any]:
    bindings: dict[str, Any] = {}
    for name, cap in m.captures.items():
        entry: dict[str, Any] = {"text": cap.text, "range": span_json(cap.span)}
        if cap.multi:
            entry["items"] = list(cap.items)
        bindings[name] = entry
    return {"path": m.path, "range": span_json(m.span), "text": m.text, "bindings": bindings}


def frame(m: Match, lines: list[str]) -> str:
    """`path:line:col` and the matched lines, numbered, with carets under the match."""
    s = m.span
    width = len(str(s.end_line))
    out = [f"{m.path}:{s.line}:{s.column}"]
    for no in range(s.line, s.end_line + 1):
        text = lines[no - 1].rstrip("\r\n") if no - 1 < len(lines) else ""
        out.append(f"{no:>{width}} | {text}")
        lo = s.column if no == s.line else 1 + (len(text) - len(text.lstrip()))
        hi = s.end_column if no == s.end_line else len(text) + 1
        if hi > lo:
            out.append(f"{'':>{width}} | {' ' * (lo - 1)}{'^' * (hi - lo)}")
    for name, cap in m.captures.items():
        out.append(f"{'':>{width}}   ${name} = {_short(cap.text)}")
    return "\n".join(out)


def _short(text: str, limit: int = 80) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def file_diff(path: str, before: str, after: str) -> str:
    diff = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                fromfile=quote_path(f"a/{path}"),
                                tofile=quote_path(f"b/{path}"))
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
                   for line in diff)


def plan_summary(plan: Plan, diffs: Iterable[tuple[PlannedFile, str]]) -> str:
    out = [f"{plan.count} edit(s) in {len(plan.files)} file(s)"
           + (f"; {plan.skipped_overlaps} nested match(es) left for a second run"
              if plan.skipped_overlaps else "")]
    out += [f"  {quote_path(f.path)} ({len(f.edits)})" for f in plan.files]
    for f, diff in diffs:
        out.append("")
        for e in f.edits:
            s = e.span
            out.append(f"{quote_path(f.path)}:{s.line}:{s.column}-{s.end_line}:{s.end_column}: "
                       f"{_short(e.old, 60)!s} -> {_short(e.new, 60) or '(deleted)'}")
        out.append(diff.rstrip("\n"))
    return "\n".join(out)
