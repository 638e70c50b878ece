"""reviewdog's Diagnostic Format: rdjson (one `DiagnosticResult`) and rdjsonl (one
`Diagnostic` per line), as its reviewdog.proto defines them.

Columns count UTF-8 bytes, from 1. A diagnostic without a range is about the whole file; a
range without columns covers whole lines. `suggestions` become the finding's fix (all of them,
as one set of edits in the diagnostic's file). The result's `severity` is the default of its
diagnostics; rdjson is read in two streaming passes because a tool may write it last.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from bot import proc
from bot.errors import GarbageOutput
from bot.linters.base import build, json_events, json_lines
from bot.linters.formats import Context, severity
from bot.model import Edit, Finding, Fix, Severity, Span

SEVERITIES = {1: Severity.ERROR, 2: Severity.WARNING, 3: Severity.INFO}


def _severity(value: Any, default: Severity) -> Severity:
    if isinstance(value, int):
        return SEVERITIES.get(value, default)
    if value in (None, "", "UNKNOWN_SEVERITY"):
        return default
    return severity(value, default)


def _default(result: proc.Result) -> Severity:
    with result.stream() as stream:
        first = True
        for prefix, event, value in json_events(stream):
            if first and event != "start_map":
                raise GarbageOutput("expected an rdjson DiagnosticResult (a JSON object)")
            first = False
            if prefix == "severity":
                return _severity(value, Severity.WARNING)
    if first:
        raise GarbageOutput("empty output, expected an rdjson DiagnosticResult")
    return Severity.WARNING


def read(result: proc.Result, ctx: Context) -> Iterator[Finding]:
    default = _default(result)
    with result.stream() as stream:
        events = json_events(stream)
        for prefix, event, value in events:
            if prefix == "diagnostics.item" and event != "end_map":
                finding = diagnostic(build(events, event, value), ctx, default)
                if finding is not None:
                    yield finding


def read_lines(result: proc.Result, ctx: Context) -> Iterator[Finding]:
    for item in json_lines(result):
        finding = diagnostic(item, ctx, Severity.WARNING)
        if finding is not None:
            yield finding


def _position(raw: Any) -> tuple[int, int | None]:
    if not isinstance(raw, dict):
        return 1, None
    column = raw.get("column")
    return int(raw.get("line") or 1), int(column) if column else None


def _span(rng: Any, path: str, ctx: Context) -> Span:
    line, column = _position(rng.get("start"))
    end_line, end_column = _position(rng["end"]) if rng.get("end") else (line, column)
    if column is None and end_column is None:  # linewise: through the end line's ending
        return Span(line, 1, end_line + 1, 1)
    start = ctx.from_bytes(path, line, column or 1)
    end = ctx.from_bytes(path, end_line, end_column) if end_column else start
    return Span(line, start, end_line, end)


def diagnostic(item: Any, ctx: Context, default: Severity) -> Finding | None:
    if not isinstance(item, dict) or not isinstance(item.get("message"), str):
        raise GarbageOutput("a diagnostic is not an object with a message")
    location = item.get("location") or {}
    path = ctx.path(str(location.get("path") or ""))
    if path is None:
        return None
    code = item.get("code") or {}
    rule = str(code.get("value") or ctx.tool)
    rng = location.get("range")
    if isinstance(rng, dict) and rng.get("start"):
        span, file_level = _span(rng, path, ctx), False
    else:
        span, file_level = Span(1, 1, 1, 1), True
    edits = tuple(Edit(path, _span(s["range"], path, ctx), str(s.get("text") or ""))
                  for s in item.get("suggestions") or []
                  if isinstance(s, dict) and isinstance(s.get("range"), dict))
    fix = (Fix(f"{ctx.tool} suggestion", edits, ctx.applicability)
           if edits and ctx.applicability is not None else None)
    return Finding(ctx.tool, rule, _severity(item.get("severity"), default), item["message"], path,
                   span, str(code["url"]) if code.get("url") else None, fix, file_level)
