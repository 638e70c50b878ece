"""Position conversions (LSP UTF-16 ranges, tsserver offsets, file URIs, `LineIndex`) and the
edit applier."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from bot import errors, positions
from bot.model import Span


def test_lsp_range_counts_utf16_units_as_code_points() -> None:
    lines = positions.split_lines("x = '😀é'; y\r\n")
    # `y` is at UTF-16 offset 11 (the emoji is two units) = code point 11.
    assert positions.lsp_range_to_span(lines, (0, 11), (0, 12)) == Span(1, 11, 1, 12)
    assert positions.span_to_lsp_range(lines, Span(1, 11, 1, 12)) == ((0, 11), (0, 12))


def test_tsserver_offsets_are_one_based() -> None:
    assert positions.tsserver_to_lsp(3, 5) == (2, 4)
    assert positions.tsserver_to_lsp(0, 0) == (0, 0)


def test_uris_with_spaces_and_non_ascii(tmp_path: Path) -> None:
    target = tmp_path / "dír with space" / "m#1.py"
    target.parent.mkdir()
    target.write_text("")
    uri = positions.path_to_uri(target)
    assert " " not in uri and "í" not in uri and "#" not in uri
    assert positions.uri_to_path(uri) == target.resolve()
    assert positions.uri_to_relpath(uri, tmp_path) == "dír with space/m#1.py"
    # Servers re-encode URIs (lower-case escapes): still the same file.
    assert positions.uri_key(uri.replace("%C3%AD", "%c3%ad")) == positions.uri_key(uri)
    assert positions.uri_to_relpath("file:///elsewhere/x.py", tmp_path) is None
    assert positions.uri_to_relpath("untitled:1", tmp_path) is None


def test_display_width_counts_terminal_columns() -> None:
    assert positions.display_width("abc") == 3
    assert positions.display_width("名前") == 4  # East Asian Wide
    assert positions.display_width("\uff21\uff22") == 4  # Fullwidth A and B
    assert positions.display_width("e\u0301") == 1  # a combining accent takes no column
    assert positions.display_width("한") == 2 and positions.display_width("\u1112\u1161\u11ab") == 2
    assert positions.display_width("a\u200bb") == 2  # zero-width space
    assert positions.display_width("😀") == 2
    assert positions.display_width("") == 0


# -- LineIndex and the edit applier ------------------------------------------------------------

# Line breaks, carriage returns, a form feed, a two-byte, a three-byte and an astral character.
_text = st.text(alphabet="ab \n\r\x0cé名😀", max_size=40)


def _boundaries(text: str, unit: str) -> list[int]:
    """The offsets of every character boundary of `text` in `unit`s."""
    out = [0]
    for char in text:
        size = {"char": 1, "utf16": positions.utf16_length(char), "byte": len(char.encode())}[unit]
        out.append(out[-1] + size)
    return out


def _index(text: str, unit: str) -> positions.LineIndex:
    return positions.LineIndex.of_bytes(text.encode()) if unit == "byte" \
        else positions.LineIndex(text, "utf16" if unit == "utf16" else "char")


@given(_text, st.sampled_from(["char", "utf16", "byte"]))
def test_every_boundary_round_trips_through_line_and_column(text: str, unit: str) -> None:
    index = _index(text, unit)
    bounds = _boundaries(text, unit)
    for at, offset in enumerate(bounds):
        line, column = index.position(offset)
        # the position is where the text says: the lines before, then the columns
        before = text[:at]
        assert line == before.count("\n") + 1
        assert column == len(before) - (before.rfind("\n") + 1) + 1
        # back to the offset, except inside a line ending ("\r" before "\n" or at the end),
        # which reads as its start
        ending = len(before) - len(before.rstrip("\r")) if text[at:].lstrip("\r")[:1] in ("\n", "") else 0
        assert index.offset(line, column) == bounds[at - ending]


@given(_text, st.integers(min_value=-5, max_value=60), st.integers(min_value=-2, max_value=60))
def test_line_and_column_out_of_range_clamp_into_the_text(text: str, line: int, column: int) -> None:
    index = positions.LineIndex(text)
    offset = index.offset(line, column)
    assert 0 <= offset <= len(text)
    assert index.position(offset + 100) == index.position(len(text))
    assert index.position(-3) == (1, 1)


def test_the_end_of_a_text_that_ends_with_a_line_break_is_the_next_line() -> None:
    # ESLint and stylelint ranges that reach the end of the file: a column past the last
    # line's break would read as "before the break" once turned back into an offset.
    index = positions.LineIndex("a\n\n\n", "utf16")
    assert index.position(4) == (4, 1)
    assert index.offset(*index.position(4)) == 4
    assert positions.LineIndex("ab").position(2) == (1, 3)
    assert positions.LineIndex("").position(0) == (1, 1)


def test_byte_offsets_count_utf8_and_invalid_bytes_read_as_replacement_characters() -> None:
    index = positions.LineIndex.of_bytes("é = 名\n😀x".encode())
    assert index.span(0, 2) == Span(1, 1, 1, 2)
    assert index.position(len("é = 名\n😀".encode())) == (2, 2)
    assert positions.LineIndex.of_bytes(b"\xff\xfea\n").position(3) == (1, 4)


@st.composite
def _edits(draw: st.DrawFn) -> tuple[str, list[positions.TextEdit[str]]]:
    """A text and non-overlapping edits of it, in any order."""
    text = draw(_text)
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=8, unique=True)))
    new = st.text(alphabet="xy\n", max_size=3)
    edits = [positions.TextEdit(a, a if draw(st.booleans()) else b, draw(new))
             for a, b in zip(cuts[::2], cuts[1::2], strict=False)]
    return text, draw(st.permutations(edits))


@given(_edits())
def test_applied_edits_leave_the_text_between_them_and_ignore_the_order(
        case: tuple[str, list[positions.TextEdit[str]]]) -> None:
    text, edits = case
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    expected, at = "", 0
    for edit in ordered:
        expected += text[at:edit.start] + edit.new
        at = edit.end
    expected += text[at:]
    assert positions.apply_edits(text, edits) == expected
    assert positions.apply_edits(text.encode(), [positions.TextEdit(
        len(text[:e.start].encode()), len(text[:e.end].encode()), e.new.encode()) for e in edits]) \
        == positions.apply_edits(text, edits).encode()


@given(_text, st.data())
def test_overlapping_edits_are_refused(text: str, data: st.DataObject) -> None:
    assume(len(text) >= 2)
    start = data.draw(st.integers(0, len(text) - 2))
    end = data.draw(st.integers(start + 2, len(text)))
    inside = data.draw(st.integers(start + 1, end - 1))
    first = positions.TextEdit(start, end, "x")
    for second in (positions.TextEdit(inside, inside, "y"), positions.TextEdit(inside, end, "y"),
                   positions.TextEdit(start, end, "y")):
        with pytest.raises(errors.EditConflict, match="overlap"):
            positions.apply_edits(text, [second, first])


def test_insertions_at_one_point_and_at_the_ends_of_a_range() -> None:
    edit = positions.TextEdit
    assert positions.apply_edits("abc", [edit(1, 2, "X"), edit(1, 1, "<"), edit(2, 2, ">")]) == "a<X>c"
    assert positions.apply_edits("abc", [edit(1, 1, "+"), edit(1, 1, "+")]) == "a+bc"
    with pytest.raises(errors.EditConflict, match=r"\[1, 1\) and \[1, 1\) overlap"):
        positions.apply_edits("abc", [edit(1, 1, "1"), edit(1, 1, "2")])
    with pytest.raises(errors.EditConflict, match="does not fit"):
        positions.apply_edits("abc", [edit(2, 1, "")])
    with pytest.raises(errors.EditConflict, match="does not fit"):
        positions.apply_edits("abc", [edit(2, 9, "")])


def test_a_span_ending_at_column_1_of_a_later_line_stops_at_the_line_before() -> None:
    assert positions.span_last_line(Span(3, 1, 5, 1)) == 4
    assert positions.span_last_line(Span(3, 2, 5, 2)) == 5
    assert positions.span_last_line(Span(3, 1, 3, 1)) == 3  # empty: its own line
