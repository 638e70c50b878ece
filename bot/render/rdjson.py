"""reviewdog's rdjson (a `DiagnosticResult`, as reviewdog's proto/rdf/reviewdog.proto defines
it): what the change made worse, for any reviewdog reporter (`reviewdog -f=rdjson`). Pure.

Introduced, changed and unclassified findings by default, preexisting ones on request; fixed
ones never (they are not at the head). Columns are UTF-8 bytes from 1 as the format counts
them, converted from the head's lines; a finding about a whole file has no range. A fix whose
edits all lie in the finding's file becomes its `suggestions`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bot import codec
from bot.model import Finding, ReviewResult, Scope, Severity, Span

SEVERITIES = {Severity.ERROR: "ERROR", Severity.WARNING: "WARNING", Severity.INFO: "INFO"}

Lines = Callable[[str], Sequence[str]]


def _column(lines: Sequence[str], line: int, column: int) -> int:
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    return len(text[: max(column, 1) - 1].encode("utf-8")) + 1


def _range(span: Span, lines: Sequence[str]) -> dict[str, Any]:
    return {"start": {"line": span.line, "column": _column(lines, span.line, span.column)},
            "end": {"line": span.end_line, "column": _column(lines, span.end_line, span.end_column)}}


def diagnostic(finding: Finding, lines: Sequence[str]) -> dict[str, Any]:
    location: dict[str, Any] = {"path": finding.path}
    if not finding.file_level:
        location["range"] = _range(finding.span, lines)
    code: dict[str, Any] = {"value": finding.rule}
    if finding.url:
        code["url"] = finding.url
    out: dict[str, Any] = {"message": finding.message, "location": location,
                           "severity": SEVERITIES[finding.severity],
                           "source": {"name": finding.tool}, "code": code}
    fix = finding.fix
    if fix is not None and fix.edits and all(e.path == finding.path for e in fix.edits):
        out["suggestions"] = [{"range": _range(e.span, lines), "text": e.new_text} for e in fix.edits]
    return out


def to_rdjson(result: ReviewResult, lines: Lines, preexisting: bool = False) -> dict[str, Any]:
    shown = sorted((v for v in result.findings
                    if v.scope.shown or (preexisting and v.scope is Scope.PREEXISTING)),
                   key=lambda v: v.finding.sort_key())
    return {"source": {"name": "reviewbot"},
            "diagnostics": [diagnostic(v.finding, lines(v.finding.path)) for v in shown]}


def to_json(result: ReviewResult, lines: Lines, preexisting: bool = False) -> str:
    return codec.json_text(to_rdjson(result, lines, preexisting)) + "\n"
