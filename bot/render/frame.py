"""Code frames: the flagged line marked with █ and a line of context on each side.

A line is shown with its tabs expanded to 4 (by code points) and its control characters
escaped; the caret under a finding is placed by the display width of the shown text before it
(wide characters two columns, combining marks none), so it lines up in a terminal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.positions import display_width
from bot.render.quoting import printable

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
    """Plain-text frame: `█ 12 | code` for flagged lines, `  11 | code` for context."""
    return render_rows(frame_lines(lines, line, end_line, context), line, end_line, column,
                       end_column)


def render_rows(rows: Sequence[FrameLine], line: int, end_line: int | None = None,
                column: int | None = None, end_column: int | None = None) -> str:
    """`rows` (a finding's `frame_lines`) as plain text. A caret line under a single-line
    finding points at its columns when they are known."""
    if not rows:
        return ""
    width = len(str(rows[-1].number))
    out: list[str] = []
    for row in rows:
        out.append(f"{MARK if row.flagged else ' '} {row.number:>{width}} | {shown(row.text)}".rstrip())
        if row.flagged and column and (end_line in (None, line)) and row.number == line:
            offset = display_width(shown(row.text[: column - 1]))
            end = display_width(shown(row.text[: (end_column or column + 1) - 1]))
            length = max(1, end - offset)
            out.append(f"  {' ' * width} | {' ' * offset}{'^' * min(length, 80)}")
    return "\n".join(out)


def shown(text: str) -> str:
    """`text` as a frame shows it. The shown form of a prefix is a prefix of the shown line
    (tab stops depend only on what precedes them), which is what places the caret."""
    return printable(text.expandtabs(4) if "\t" in text else text)
