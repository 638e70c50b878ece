"""SARIF 2.1.0 logs (`runs[].results[]`), read in two streaming passes: first each run's
settings (its `columnKind`, `originalUriBaseIds` and rules' help links, which a log may write
after its results), then the results one by one.

Columns: SARIF counts UTF-16 code units when a run says `columnKind: utf16CodeUnits`, code
points otherwise. A result's first location is where it is; a result with no region is about
the whole file. `fixes[0]` becomes the finding's fix when every replacement has a line region.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote, urljoin

from bot import proc
from bot.errors import GarbageOutput
from bot.linters.base import build, json_events
from bot.linters.formats import Context
from bot.model import Edit, Finding, Fix, Severity, Span

LEVELS = {"error": Severity.ERROR, "warning": Severity.WARNING, "note": Severity.INFO,
          "none": Severity.INFO}
SKIPPED_KINDS = frozenset({"pass", "notApplicable"})


@dataclass
class _Run:
    utf16: bool = False
    bases: dict[str, str] = field(default_factory=dict)  # uriBaseId -> its URI
    help: dict[str, str] = field(default_factory=dict)  # rule id -> helpUri


def _settings(result: proc.Result) -> list[_Run]:
    runs: list[_Run] = []
    with result.stream() as stream:
        events = json_events(stream)
        seen = False
        for prefix, event, value in events:
            if not seen and event != "start_map":
                raise GarbageOutput("expected a SARIF log (a JSON object with `runs`)")
            seen = True
            if prefix == "runs.item" and event == "start_map":
                runs.append(_Run())
            elif prefix == "runs.item.columnKind" and runs:
                runs[-1].utf16 = value == "utf16CodeUnits"
            elif prefix == "runs.item.originalUriBaseIds" and event == "start_map" and runs:
                found = build(events, event, value)
                runs[-1].bases = {k: str(v.get("uri", "")) for k, v in found.items()
                                  if isinstance(v, dict)}
            elif prefix == "runs.item.tool.driver.rules.item" and event == "start_map" and runs:
                rule = build(events, event, value)
                if isinstance(rule, dict) and rule.get("id") and rule.get("helpUri"):
                    runs[-1].help[str(rule["id"])] = str(rule["helpUri"])
        if not seen:
            raise GarbageOutput("empty output, expected a SARIF log")
    return runs


def read(result: proc.Result, ctx: Context) -> Iterator[Finding]:
    runs = _settings(result)
    with result.stream() as stream:
        events = json_events(stream)
        index = -1
        for prefix, event, value in events:
            if prefix == "runs.item" and event == "start_map":
                index += 1
            elif prefix == "runs.item.results.item" and event != "end_map":
                item = build(events, event, value)
                finding = _finding(item, runs[index], ctx)
                if finding is not None:
                    yield finding


def _uri(location: Any, run: _Run) -> str:
    artifact = location.get("artifactLocation") or {}
    uri = str(artifact.get("uri") or "")
    base = run.bases.get(str(artifact.get("uriBaseId") or ""), "")
    if base and not uri.startswith("file:"):
        uri = urljoin(base if base.endswith("/") else base + "/", uri)
    return uri if uri.startswith("file:") else unquote(uri)


def _span(region: dict[str, Any], path: str, run: _Run, ctx: Context) -> Span:
    line = int(region.get("startLine") or 1)
    end_line = int(region.get("endLine") or line)
    if "startColumn" not in region:  # whole lines
        return Span(line, 1, end_line + 1, 1) if "endLine" in region else Span(line, 1, line, 1)
    column = int(region["startColumn"])
    end_column = int(region.get("endColumn") or column)
    if run.utf16:
        column = ctx.from_utf16(path, line, column)
        end_column = ctx.from_utf16(path, end_line, end_column)
    return Span(line, max(column, 1), end_line, max(end_column, 1))


def _finding(item: Any, run: _Run, ctx: Context) -> Finding | None:
    if not isinstance(item, dict):
        raise GarbageOutput("a SARIF result is not an object")
    if item.get("kind") in SKIPPED_KINDS:
        return None
    locations = item.get("locations") or []
    physical = (locations[0] or {}).get("physicalLocation") if locations else None
    if not isinstance(physical, dict):
        return None  # about no file: nothing a review can place
    path = ctx.path(_uri(physical, run))
    if path is None:
        return None
    rule = str(item.get("ruleId") or (item.get("rule") or {}).get("id") or ctx.tool)
    message = item.get("message") or {}
    text = str(message.get("text") or message.get("markdown") or rule)
    level = LEVELS.get(str(item.get("level") or "warning"), Severity.WARNING)
    if item.get("kind") not in (None, "fail"):
        level = Severity.INFO  # review, open, informational: not a failure of the check
    region = physical.get("region")
    if isinstance(region, dict) and region.get("startLine"):
        span, file_level = _span(region, path, run, ctx), False
    else:
        span, file_level = Span(1, 1, 1, 1), True
    return Finding(ctx.tool, rule, level, text, path, span, run.help.get(rule),
                   _fix(item.get("fixes"), run, ctx), file_level)


def _fix(fixes: Any, run: _Run, ctx: Context) -> Fix | None:
    if ctx.applicability is None or not isinstance(fixes, list) or not fixes \
            or not isinstance(fixes[0], dict):
        return None
    edits = []
    for change in fixes[0].get("artifactChanges") or []:
        path = ctx.path(_uri(change, run))
        if path is None:
            return None
        for replacement in change.get("replacements") or []:
            region = replacement.get("deletedRegion") or {}
            if not region.get("startLine"):
                return None  # character offsets only: not placed without reading the file
            inserted = replacement.get("insertedContent") or {}
            edits.append(Edit(path, _span(region, path, run, ctx), str(inserted.get("text") or "")))
    if not edits:
        return None
    description = (fixes[0].get("description") or {}).get("text") or f"{ctx.tool} fix"
    return Fix(str(description), tuple(edits), ctx.applicability)

