"""Checkstyle XML (`<checkstyle><file name><error line column severity message source/>`),
read element by element. Columns count characters from 1; a missing or 0 column means the
whole line. Severity `ignore` is dropped. The parser resolves no external entities.
"""

from __future__ import annotations

from collections.abc import Iterator
from xml.etree import ElementTree

from bot import proc
from bot.errors import GarbageOutput
from bot.linters.formats import Context, severity
from bot.model import Finding, Severity, Span


def read(result: proc.Result, ctx: Context) -> Iterator[Finding]:
    path: str | None = None
    with result.stream() as stream:
        try:
            events = ElementTree.iterparse(stream, events=("start", "end"))
            _, root = next(events)
            if root.tag != "checkstyle":
                raise GarbageOutput(f"expected a <checkstyle> document, not <{root.tag}>")
            for event, element in events:
                if event == "start" and element.tag == "file":
                    path = ctx.path(element.get("name") or "")
                elif event == "end" and element.tag == "error":
                    finding = _finding(element, path, ctx)
                    if finding is not None:
                        yield finding
                    root.clear()  # keep memory flat whatever the tool prints
        except StopIteration:
            raise GarbageOutput("empty output, expected a <checkstyle> document") from None
        except ElementTree.ParseError as exc:
            raise GarbageOutput(f"not checkstyle XML: {exc}") from exc


def _finding(element: ElementTree.Element, path: str | None, ctx: Context) -> Finding | None:
    level = element.get("severity") or "error"
    if path is None or level == "ignore":
        return None
    line = int(element.get("line") or 0)
    column = int(element.get("column") or 0)
    message = element.get("message") or ""
    rule = element.get("source") or ctx.tool
    if line < 1:
        return Finding(ctx.tool, rule, severity(level, Severity.ERROR), message, path,
                       Span(1, 1, 1, 1), file_level=True)
    span = Span(line, column, line, column) if column >= 1 else Span(line, 1, line + 1, 1)
    return Finding(ctx.tool, rule, severity(level, Severity.ERROR), message, path, span)
