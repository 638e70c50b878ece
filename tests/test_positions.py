"""Position conversions: LSP UTF-16 ranges, tsserver offsets, file URIs."""

from __future__ import annotations

from pathlib import Path

from bot import positions
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
