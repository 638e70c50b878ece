"""The one place that converts positions between tool conventions and the model's.

The model uses 1-based lines and 1-based columns counted in Unicode code points, end exclusive.
Tools speak 0-based lines (LSP), UTF-16 code units (LSP, JavaScript), byte offsets (rustc,
Go), or character offsets from the start of the file (ESLint fixes).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote, unquote, urlparse

from bot.model import Span

_ZERO_WIDTH = frozenset({"Mn", "Me", "Cf", "Cc"})  # combining marks, format and controls


def split_lines(text: str) -> list[str]:
    """Lines with their endings kept, split on "\n" only, as git and the linters count them
    (str.splitlines would also break on form feeds and U+2028 and shift every later line)."""
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def utf16_to_column(line_text: str, units: int) -> int:
    """1-based code-point column for a 0-based UTF-16 offset within a line."""
    count = 0
    for index, char in enumerate(line_text):
        if count >= units:
            return index + 1
        count += 2 if ord(char) > 0xFFFF else 1
    return len(line_text) + 1


def utf16_length(text: str) -> int:
    """Length in UTF-16 code units (astral characters count two)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def column_to_utf16(line_text: str, column: int) -> int:
    """0-based UTF-16 offset for a 1-based code-point column."""
    return utf16_length(line_text[: column - 1])


def byte_to_column(line_text: str, byte_offset: int) -> int:
    """1-based code-point column for a 0-based UTF-8 byte offset within a line."""
    data = line_text.encode("utf-8")[:byte_offset]
    return len(data.decode("utf-8", errors="ignore")) + 1


def offset_to_position(lines: Sequence[str], offset: int, utf16: bool = False) -> tuple[int, int]:
    """(line, column), both 1-based, for a 0-based offset into the joined `lines`.

    `utf16` counts the offset in UTF-16 code units (JavaScript string indices).
    """
    remaining = offset
    for number, line in enumerate(lines, start=1):
        size = utf16_length(line) if utf16 else len(line)
        if remaining < size or number == len(lines):
            column = utf16_to_column(line, remaining) if utf16 else min(remaining, len(line)) + 1
            return number, column
        remaining -= size
    return max(1, len(lines)), 1


def lsp_range_to_span(lines: Sequence[str], start: tuple[int, int], end: tuple[int, int]) -> Span:
    """Span for an LSP range given as (0-based line, UTF-16 character) pairs."""

    def point(line0: int, char: int) -> tuple[int, int]:
        if line0 >= len(lines):
            return line0 + 1, 1
        return line0 + 1, utf16_to_column(lines[line0].rstrip("\r\n"), char)

    (sl, sc), (el, ec) = point(*start), point(*end)
    return Span(sl, sc, el, ec)


def span_to_lsp_range(lines: Sequence[str], span: Span) -> tuple[tuple[int, int], tuple[int, int]]:
    def point(line: int, column: int) -> tuple[int, int]:
        text = lines[line - 1].rstrip("\r\n") if 0 < line <= len(lines) else ""
        return line - 1, column_to_utf16(text, column)

    return point(span.line, span.column), point(span.end_line, span.end_column)


def path_to_uri(path: Path) -> str:
    """file:// URI with spaces and non-ASCII percent-encoded, as servers expect."""
    return "file://" + quote(str(path.resolve()), safe="/")


def uri_to_path(uri: str) -> Path:
    parsed = urlparse(uri)
    return Path(unquote(parsed.path))


def byte_offset_to_position(data: bytes, offset: int) -> tuple[int, int]:
    """(line, code-point column), both 1-based, for a 0-based byte offset into file bytes
    (Go token offsets, rustc `byte_start`). Offsets past the end clamp to the end."""
    offset = max(0, min(offset, len(data)))
    line_start = data.rfind(b"\n", 0, offset) + 1
    line = data.count(b"\n", 0, line_start) + 1
    return line, len(data[line_start:offset].decode("utf-8", errors="ignore")) + 1


def tsserver_to_lsp(line: int, offset: int) -> tuple[int, int]:
    """tsserver's 1-based line and 1-based UTF-16 offset as an LSP (0-based) position."""
    return max(line - 1, 0), max(offset - 1, 0)


def uri_key(uri: str) -> str:
    """A canonical form of a file URI for comparisons: servers re-encode URIs differently
    (`%3A` vs `:`, lower-case hex, symlinked temp dirs)."""
    return str(uri_to_path(uri).resolve())


def uri_to_relpath(uri: str, root: Path) -> str | None:
    """Repo-relative POSIX path of a file URI, or None when it lies outside `root`."""
    if not uri.startswith("file:"):
        return None
    try:
        return uri_to_path(uri).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


def display_width(text: str) -> int:
    """Terminal columns `text` takes: East Asian Wide and Fullwidth characters two, combining
    marks, format characters and Hangul medial vowels / final consonants none, the rest one."""
    return sum(_char_width(char) for char in text)


def _char_width(char: str) -> int:
    if unicodedata.category(char) in _ZERO_WIDTH or 0x1160 <= ord(char) <= 0x11FF:
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
