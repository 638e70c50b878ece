"""A finding's fix as a whole-line replacement: what a forge's suggestion block carries.

Forge-neutral and pure. Each forge fences the text its own way (its `Dialect`); all of them
replace whole lines, so every edit of a fix is widened to the lines it touches, adjacent
edits of one fix are merged into one range, and the range is extended when an edit removes a
line break (the next line then belongs to the replaced text).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.errors import EditConflict
from bot.model import Applicability, Edit, Fix
from bot.positions import LineIndex, TextEdit, apply_edits, span_last_line, split_lines

MAX_LINES = 50  # a longer suggestion is unreadable; the fix is described instead


@dataclass(frozen=True)
class Suggestion:
    start_line: int  # first head line replaced, 1-based
    end_line: int  # last head line replaced, inclusive
    lines: tuple[str, ...]  # the replacement lines without line breaks; () deletes the range
    description: str
    applicability: Applicability


@dataclass(frozen=True)
class NoSuggestion:
    reason: str  # why the fix cannot be offered as a one-click suggestion



def suggest(fix: Fix, path: str, lines: Sequence[str]) -> Suggestion | NoSuggestion:
    """The replacement for the lines `fix` touches in `lines` (the head file, `split_lines`)."""
    if fix.applicability == Applicability.DISPLAY:
        return NoSuggestion("the tool marks this fix as display-only")
    if not fix.edits or any(edit.path != path for edit in fix.edits):
        return NoSuggestion("the fix edits other files")
    edits = sorted(fix.edits, key=lambda e: e.span)
    if _overlap(edits):
        return NoSuggestion("the fix has overlapping edits")
    start, end = _line_range(edits, len(lines))
    if start < 1:
        return NoSuggestion("the fix edits an empty file")
    while True:
        original = "".join(lines[start - 1:end])
        new = _apply(edits, lines, start, end)
        if new is None:
            return NoSuggestion("the fix does not fit the file")
        if new and original.endswith("\n") and not new.endswith("\n") and end < len(lines):
            end += 1  # an edit removed the range's last line break: the next line joins it
            continue
        break
    if end - start + 1 > MAX_LINES:
        return NoSuggestion(f"the fix spans more than {MAX_LINES} lines")
    old_lines, new_lines = _as_lines(original), _as_lines(new)
    if old_lines == new_lines:
        return NoSuggestion("the fix only changes the end-of-file newline, "
                            "which a suggestion cannot express")
    if any("\r" in line or "\x00" in line for line in new_lines):
        # Markdown reads a lone CR as a line break and a NUL as U+FFFD: the suggestion would
        # commit something other than the fix.
        return NoSuggestion("the fix writes a carriage return or NUL inside a line, "
                            "which a suggestion cannot carry")
    return Suggestion(start, end, new_lines, fix.description, fix.applicability)


def _overlap(edits: Sequence[Edit]) -> bool:
    for before, after in itertools.pairwise(edits):
        if (before.span.end_line, before.span.end_column) > (after.span.line, after.span.column):
            return True
    return False


def _line_range(edits: Sequence[Edit], count: int) -> tuple[int, int]:
    start = min(edit.span.line for edit in edits)
    end = max(span_last_line(edit.span) for edit in edits)
    start = min(start, count)  # an insertion after the last line anchors on the last line
    return start, max(start, min(end, count))


def _apply(edits: Sequence[Edit], lines: Sequence[str], start: int, end: int) -> str | None:
    """The lines [start, end] with `edits` applied, or None when an edit reaches outside them
    (past a line's text, or beyond the start of the line after them) or two edits conflict."""
    if not all(_inside(lines, start, end, e.span.line, e.span.column)
               and _inside(lines, start, end, e.span.end_line, e.span.end_column) for e in edits):
        return None
    index = LineIndex("".join(lines[start - 1:end]))
    moved = [TextEdit(index.offset(e.span.line - start + 1, e.span.column),
                      index.offset(e.span.end_line - start + 1, e.span.end_column), e.new_text)
             for e in edits]
    try:
        return apply_edits(index.text, moved)
    except EditConflict:
        return None


def _inside(lines: Sequence[str], start: int, end: int, line: int, column: int) -> bool:
    if line == end + 1:
        return column == 1  # the start of the line after the range (or end of file)
    return start <= line <= end and column - 1 <= len(lines[line - 1].rstrip("\r\n"))


def _as_lines(text: str) -> tuple[str, ...]:
    return tuple(line.rstrip("\r\n") for line in split_lines(text))


def fence(text: str, minimum: int = 3) -> str:
    """A backtick fence longer than any backtick run inside `text`."""
    runs = [len(run) for run in re.findall(r"`+", text)]
    return "`" * max(minimum, max(runs, default=0) + 1)


def block(lines: Sequence[str], info: str) -> str:
    """A fenced block of `lines` (`info` is the language or `suggestion`); () is an empty block."""
    body = "\n".join(line.rstrip("\r\n") for line in lines)
    mark = fence(body)
    return f"{mark}{info}\n{body}\n{mark}" if lines else f"{mark}{info}\n{mark}"
