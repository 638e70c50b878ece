"""Code frames: the flagged line marked with █ and a line of context on each side."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MARK = "█"


@dataclass(frozen=True)
class FrameLine:
    number: int
    text: str
    flagged: bool


def frame_lines(lines: Sequence[str], line: int, end_line: int | None = None,
                context: int = 1, max_flagged: int = 6) -> list[FrameLine]:
    """The lines to show for a finding on `line`..`end_line` (1-based) of a file.

    Long multi-line findings show their first `max_flagged` lines only.
    """
    if not lines:
        return []
    last = min(end_line or line, line + max_flagged - 1)
    start = max(1, line - context)
    stop = min(len(lines), max(line, last) + context)
    if line > len(lines):  # e.g. a finding at EOF on a missing final newline
        start, stop = max(1, len(lines) - context), len(lines)
    return [FrameLine(n, lines[n - 1].rstrip("\r\n"), line <= n <= last) for n in range(start, stop + 1)]


def render_frame(lines: Sequence[str], line: int, end_line: int | None = None,
                 context: int = 1, column: int | None = None, end_column: int | None = None) -> str:
    """Plain-text frame: `█ 12 | code` for flagged lines, `  11 | code` for context.

    A caret line under a single-line finding points at its columns when they are known.
    """
    rows = frame_lines(lines, line, end_line, context)
    if not rows:
        return ""
    width = len(str(rows[-1].number))
    out: list[str] = []
    for row in rows:
        text = row.text.expandtabs(4) if "\t" in row.text else row.text
        out.append(f"{MARK if row.flagged else ' '} {row.number:>{width}} | {text}".rstrip())
        if row.flagged and column and (end_line in (None, line)) and row.number == line:
            prefix = row.text[: column - 1].expandtabs(4)
            length = max(1, (end_column or column + 1) - column)
            out.append(f"  {' ' * width} | {' ' * len(prefix)}{'^' * min(length, 80)}")
    return "\n".join(out)
