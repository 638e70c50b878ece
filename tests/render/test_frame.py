"""Code frames: the caret sits under the flagged text however wide the characters before it are."""

from __future__ import annotations

from bot.positions import display_width
from bot.render.frame import render_frame


def caret(frame: str) -> tuple[int, int]:
    """(display column where the carets start, how many) in the frame's caret line."""
    line = next(row for row in frame.split("\n") if row.rstrip().endswith("^"))
    start = line.index("^")
    return start, len(line) - start


def code_start(frame: str) -> int:
    row = next(row for row in frame.split("\n") if row.startswith("█"))
    return row.index("| ") + 2


def test_caret_under_cjk_counts_two_columns_per_wide_character() -> None:
    line = "名前 = 未定義 + 1\n"
    frame = render_frame([line], 1, 1, 0, column=6, end_column=9)  # `未定義`
    start, length = caret(frame)
    assert start - code_start(frame) == display_width("名前 = ") == 7
    assert length == display_width("未定義") == 6


def test_caret_after_combining_marks_and_fullwidth() -> None:
    line = "cafe\u0301 = \uff21\uff22 + x\n"  # two fullwidth letters
    column = line.index("x") + 1
    start, length = caret(render_frame([line], 1, 1, 0, column=column, end_column=column + 1))
    assert start - code_start(render_frame([line], 1, 1, 0)) == 4 + 3 + 4 + 3
    assert length == 1


def test_tabs_expand_the_same_in_the_line_and_under_it() -> None:
    line = "\t名\tx = 1\n"
    column = line.index("x") + 1
    frame = render_frame([line], 1, 1, 0, column=column, end_column=column + 1)
    shown = next(row for row in frame.split("\n") if row.startswith("█"))
    code = shown[code_start(frame):]
    start, _ = caret(frame)
    assert display_width(code[: code.index("x")]) == start - code_start(frame)


def test_control_characters_in_code_are_escaped_and_counted() -> None:
    line = "s = '\x1b[2J'; y\n"
    column = line.index("y") + 1
    frame = render_frame([line], 1, 1, 0, column=column, end_column=column + 1)
    assert "\x1b" not in frame and "\\x1b[2J" in frame
    row = next(row for row in frame.split("\n") if row.startswith("█"))
    start, _ = caret(frame)
    assert row[start] == "y"
