"""The one place that converts positions between tool conventions and the model's.

The model uses 1-based lines and 1-based columns counted in Unicode code points, end exclusive.
Tools speak 0-based lines (LSP), UTF-16 code units (LSP, JavaScript), byte offsets (rustc,
Go, tree-sitter), or character offsets from the start of the file (ESLint fixes).

`LineIndex` converts offsets of one text to and from (line, column) after indexing the line
starts once; `apply_edits` is the one place a list of edits becomes a new text.
"""

from __future__ import annotations

import itertools
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import AnyStr, Generic, Literal
from urllib.parse import quote, unquote, urlparse

from bot.errors import EditConflict
from bot.model import Edit, Span

_ZERO_WIDTH = frozenset({"Mn", "Me", "Cf", "Cc"})  # combining marks, format and controls


def split_lines(text: str) -> list[str]:
    """Lines with their endings kept, split on "\n" only, as git and the linters count them
    (str.splitlines would also break on form feeds and U+2028 and shift every later line)."""
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


Unit = Literal["char", "utf16", "byte"]


class LineIndex:
    """The line starts of one text, indexed once: an offset's (line, column) and a (line,
    column)'s offset in O(log lines) each.

    Offsets count `unit`s from the start of the text: code points (`char`, Python string
    indices), UTF-16 code units (`utf16`, JavaScript string indices) or UTF-8 bytes (`byte`,
    tree-sitter and Go; built with `of_bytes`). Lines end at "\n" only (`split_lines`); the
    text after a final "\n" is an empty last line, so the end of the text is always a
    position. Columns are 1-based code points, as in `Span`.
    """

    def __init__(self, text: str, unit: Literal["char", "utf16"] = "char") -> None:
        self.unit: Unit = unit
        self._data = b""
        self.text = text
        self.lines = split_lines(text)
        self._setup([len(line) if unit == "char" else utf16_length(line) for line in self.lines])

    @classmethod
    def of_bytes(cls, data: bytes) -> LineIndex:
        """An index whose offsets count the UTF-8 bytes of `data` (invalid bytes read as
        U+FFFD, one per bad sequence, as `bytes.decode(errors="replace")` reads them)."""
        index = cls.__new__(cls)
        index.unit = "byte"
        index._data = data
        chunks = [part + b"\n" for part in data.split(b"\n")]
        chunks[-1] = chunks[-1][:-1]
        if not chunks[-1]:
            chunks.pop()
        index.lines = [chunk.decode("utf-8", errors="replace") for chunk in chunks]
        index.text = "".join(index.lines)
        index._setup([len(chunk) for chunk in chunks])
        return index

    def _setup(self, sizes: Sequence[int]) -> None:
        starts = [0]
        for size in sizes:
            starts.append(starts[-1] + size)
        self.end = starts[-1]
        # A line starts after every "\n": the last start is the end of the text, a line
        # only when the text ends with a line break (or is empty).
        if self.lines and not self.lines[-1].endswith("\n"):
            starts.pop()
        self.starts = starts

    def position(self, offset: int) -> tuple[int, int]:
        """(line, column), 1-based, of a 0-based offset; offsets outside the text clamp to it.
        An offset inside a character (a UTF-16 surrogate pair, a UTF-8 sequence) counts that
        character as passed."""
        offset = max(0, min(offset, self.end))
        row = bisect_right(self.starts, offset) - 1
        within = offset - self.starts[row]
        line = self.lines[row] if row < len(self.lines) else ""
        if self.unit == "char":
            return row + 1, within + 1
        if self.unit == "utf16":
            return row + 1, utf16_to_column(line, within)
        start = self.starts[row]
        return row + 1, len(self._data[start:start + within].decode("utf-8", errors="replace")) + 1

    def span(self, start: int, end: int) -> Span:
        """The span of the offsets [start, end)."""
        return Span(*self.position(start), *self.position(end))

    def offset(self, line: int, column: int) -> int:
        """0-based offset of a 1-based (line, code-point column): a line past the end is the
        end of the text, a column past a line's text stops before its line ending (its "\n"
        and any "\r" before it)."""
        if line > len(self.lines) or not self.lines:
            return self.end
        row = max(line, 1) - 1
        content = self.lines[row].rstrip("\r\n")
        before = content[: min(max(column, 1) - 1, len(content))]
        if self.unit == "char":
            size = len(before)
        elif self.unit == "utf16":
            size = utf16_length(before)
        else:
            size = len(before.encode("utf-8"))
        return self.starts[row] + size

    def range(self, span: Span) -> tuple[int, int]:
        """(start, end) offsets of a span (see `offset`)."""
        return self.offset(span.line, span.column), self.offset(span.end_line, span.end_column)


@dataclass(frozen=True)
class TextEdit(Generic[AnyStr]):
    """Replace the offsets [start, end) of a text (str or bytes) with `new`."""

    start: int
    end: int
    new: AnyStr


def conflicts(a: TextEdit[AnyStr], b: TextEdit[AnyStr]) -> bool:
    """Two edits conflict when their ranges intersect, when an insertion falls strictly inside
    the other's range, or when two different insertions share a point (order unknown).
    Identical edits do not conflict: they are one edit."""
    if a == b:
        return False
    if a.start == a.end and b.start == b.end:
        return a.start == b.start
    if a.start == a.end:
        return b.start < a.start < b.end
    if b.start == b.end:
        return a.start < b.start < a.end
    return a.start < b.end and b.start < a.end


def check_edits(edits: Iterable[TextEdit[AnyStr]], size: int) -> list[TextEdit[AnyStr]]:
    """The distinct `edits` in text order; raises `EditConflict` when one is reversed or out
    of the text (`size` units long) or two conflict."""
    ordered = sorted(dict.fromkeys(edits), key=lambda e: (e.start, e.end))
    for edit in ordered:
        if not 0 <= edit.start <= edit.end <= size:
            raise EditConflict(f"the edit of [{edit.start}, {edit.end}) does not fit a text of "
                               f"{size}")
    for before, after in itertools.pairwise(ordered):
        if conflicts(before, after):
            raise EditConflict(f"the edits of [{before.start}, {before.end}) and "
                               f"[{after.start}, {after.end}) overlap")
    return ordered


def apply_edits(text: AnyStr, edits: Iterable[TextEdit[AnyStr]]) -> AnyStr:
    """`text` with every edit applied, offsets counted in the original text (code points for
    str, bytes for bytes). Identical edits apply once; an insertion at the start of a
    replaced range goes before the replacement, at its end after it. Raises `EditConflict`
    when two edits overlap, rather than guess an order."""
    ordered = check_edits(edits, len(text))
    pieces: list[AnyStr] = []
    at = 0
    for edit in ordered:
        pieces += [text[at:edit.start], edit.new]
        at = edit.end
    pieces.append(text[at:])
    return text[:0].join(pieces)


def span_edits(index: LineIndex, edits: Iterable[Edit]) -> list[TextEdit[str]]:
    """The offsets of `edits` (of the text `index` indexes) as `TextEdit`s."""
    return [TextEdit(*index.range(edit.span), edit.new_text) for edit in edits]


def apply_span_edits(text: str, edits: Iterable[Edit]) -> str:
    """`text` with `edits` (spans of it, paths ignored) applied; `EditConflict` on overlaps."""
    return apply_edits(text, span_edits(LineIndex(text), edits))


def span_last_line(span: Span) -> int:
    """A span's last line: one ending at column 1 of a later line (end exclusive) stops at the
    previous line's break (a finding's, and a fix's edit)."""
    return span.end_line - 1 if span.end_column == 1 and span.end_line > span.line else span.end_line


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
