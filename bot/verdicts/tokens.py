"""A file's code as a sequence of normalised tokens, and where its definitions lie (pure).

A formatter moves line breaks and indentation, adds or drops trailing commas and semicolons,
and swaps quote styles; it keeps the tokens. Comparing two revisions token by token therefore
sees through a reflow that a line-by-line comparison takes for new code, and a function's
tokens (its own name left out) recognise it after a move into another file or class. Tokens
come from the tree-sitter grammar of the file's language (the grammars `bot.structural.lang`
bundles), or from a plain lexer for files no grammar covers.
"""

from __future__ import annotations

import bisect
import difflib
import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import tree_sitter as ts

# Grammars for the files linters check that structural search has no patterns for.
_EXTRA_GRAMMARS = {".css": "css", ".scss": "scss"}
# Punctuation a formatter adds or removes without changing the code: a `,` before a closing
# bracket (a "magic" trailing comma), and statement-ending semicolons (JavaScript's ASI style).
_CLOSERS = frozenset({")", "]", "}", ">"})
_QUOTE = re.compile(r"[rRbBuUfF]{0,2}('''|\"\"\"|'|\")")
_PLAIN = re.compile(r"""[A-Za-z_$\d][\w$]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|\S""")
# Node kinds that define a function, method or class, across the bundled grammars.
_DEFINITIONS = frozenset({
    "function_definition", "class_definition", "function_declaration",
    "generator_function_declaration", "method_definition", "method_declaration",
    "class_declaration", "abstract_class_declaration", "function_expression", "arrow_function",
    "function_item", "impl_item", "trait_item"})
# Pieces of a string kept whole (an escape sequence inside one is part of its text).
_STRING_PIECES = frozenset({"string_content", "string_fragment", "escape_sequence"})


class Token(NamedTuple):
    """One token: its normalised text and where it starts and ends (1-based, characters).
    A tuple, not a dataclass: a file has thousands and building them is most of the cost."""

    text: str
    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class Definition:
    """A function, method or class of more than one line: the tokens it spans and the one
    that names it."""

    start: int  # index of its first token
    stop: int  # index past its last token
    name: int | None  # index of its name token (an arrow function has none of its own)


@dataclass(frozen=True)
class Code:
    """A file read as tokens, with its definitions (outer ones before the ones inside them)."""

    tokens: tuple[Token, ...]
    definitions: tuple[Definition, ...] = ()

    @functools.cached_property
    def lines(self) -> list[int]:
        """Each token's line, for bisecting (sorted, as the tokens are)."""
        return [t.line for t in self.tokens]

    def token_at(self, line: int, column: int) -> int | None:
        """The index of the token under a position: the one covering it, else the nearest
        before it on its line, else the first after; on a line no token starts on, the token
        spanning it."""
        tokens, lines = self.tokens, self.lines
        lo, hi = bisect.bisect_left(lines, line), bisect.bisect_right(lines, line)
        if lo == hi:
            if lo > 0 and tokens[lo - 1].end_line >= line:
                return lo - 1
            return None
        for k in range(lo, hi):
            token = tokens[k]
            if token.column <= column and (column < token.end_column or token.end_line > line):
                return k
        before = [k for k in range(lo, hi) if tokens[k].column <= column]
        return before[-1] if before else lo

    def texts(self, start: int, stop: int) -> tuple[str, ...]:
        return tuple(t.text for t in self.tokens[start:stop])

    def name_of(self, d: Definition) -> str | None:
        return None if d.name is None else self.tokens[d.name].text

    def names(self) -> list[str]:
        """The names of the definitions, in order."""
        return [self.tokens[d.name].text for d in self.definitions if d.name is not None]

    def signature(self, d: Definition) -> tuple[str, ...]:
        """A definition's tokens, its own name left out: a renamed function is the same code."""
        texts = [t.text for t in self.tokens[d.start:d.stop]]
        if d.name is not None:
            texts[d.name - d.start] = "\0"
        return tuple(texts)

    # On the value rather than in the module: its callers hold a `Code` already, and the
    # module is imported only where a file is read as tokens (bot.verdicts.classify).
    @staticmethod
    def aligned(a: Sequence[str], b: Sequence[str]) -> dict[int, int]:
        """Index pairs of equal tokens of two sequences (all of them when the two are equal)."""
        if a == b:
            return {k: k for k in range(len(a))}
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        return {i + k: j + k for i, j, n in matcher.get_matching_blocks() for k in range(n)}


def grammar_for(path: str) -> str | None:
    return _grammar_for_suffix(PurePath(path).suffix.lower())


@functools.cache
def _grammar_for_suffix(suffix: str) -> str | None:
    from bot.structural.lang import for_path  # tree-sitter loads only when a file is read

    found = for_path(f"_{suffix}")
    return found.grammar if found is not None else _EXTRA_GRAMMARS.get(suffix)


def read(path: str, lines: Sequence[str]) -> Code:
    """The normalised tokens of a file given as its lines (line ends kept), and where its
    definitions lie among them (none for a file no grammar covers)."""
    grammar = grammar_for(path)
    if grammar is None:
        return Code(_normalised(_plain_tokens(lines))[0])
    raw, spans = _tree_tokens(grammar, lines)
    tokens, index = _normalised(raw)
    return Code(tokens, tuple(
        Definition(index[start], index[stop], None if name is None else index[name])
        for start, stop, name in spans if index[stop] > index[start]))


def _normalised(raw: Sequence[Token]) -> tuple[tuple[Token, ...], list[int]]:
    """The tokens a formatter cannot change, and each raw index's place among them (one more
    entry for the end)."""
    out: list[Token] = []
    index: list[int] = []
    for i, token in enumerate(raw):
        index.append(len(out))
        if token.text == ";":
            continue
        if token.text == "," and i + 1 < len(raw) and raw[i + 1].text in _CLOSERS:
            continue
        if _QUOTE.fullmatch(token.text):
            token = token._replace(text='"')
        out.append(token)
    index.append(len(out))
    return tuple(out), index


_DefSpan = tuple[int, int, "int | None"]  # first token, past the last, name token


def _tree_tokens(grammar: str, lines: Sequence[str]) -> tuple[list[Token], list[_DefSpan]]:
    """Leaf tokens (comments left out) and the token span of each definition, outer first."""
    text = "".join(lines)
    source = text.encode("utf-8", "surrogateescape")
    from bot.structural.lang import parse

    tree = parse(grammar, source)
    columns = _Columns(lines, text if text.isascii() else None)
    out: list[Token] = []
    spans: list[_DefSpan] = []
    open_defs: list[tuple[int, int, int]] = []  # (slot in spans, end byte, name start byte)
    at_byte: dict[int, int] = {}  # start byte of each token -> its index
    cursor = tree.walk()
    while True:
        node = cursor.node
        assert node is not None
        kind, start = node.type, node.start_byte
        while open_defs and start >= open_defs[-1][1]:
            _close(spans, open_defs.pop(), len(out), at_byte)
        if kind in _DEFINITIONS and node.start_point.row < node.end_point.row:
            name = node.child_by_field_name("name")
            open_defs.append((len(spans), node.end_byte, -1 if name is None else name.start_byte))
            spans.append((len(out), len(out), None))
        if node.child_count == 0 or kind in _STRING_PIECES:
            if start < node.end_byte and "comment" not in kind:
                at_byte[start] = len(out)
                out.append(_token(node, source, columns))
        elif cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                while open_defs:
                    _close(spans, open_defs.pop(), len(out), at_byte)
                return out, spans


def _close(spans: list[_DefSpan], opened: tuple[int, int, int], stop: int,
           at_byte: dict[int, int]) -> None:
    slot, _, name_byte = opened
    spans[slot] = (spans[slot][0], stop, at_byte.get(name_byte))


def _token(node: ts.Node, source: bytes, columns: _Columns) -> Token:
    if columns.ascii is not None:  # bytes are characters: nothing to decode or count
        text = columns.ascii[node.start_byte:node.end_byte]
        (row, column), (end_row, end_column) = node.start_point, node.end_point
        line, column, end_line, end_column = row + 1, column + 1, end_row + 1, end_column + 1
    else:
        text = source[node.start_byte:node.end_byte].decode("utf-8", "surrogateescape")
        line, column = columns.at(node.start_point)
        end_line, end_column = columns.at(node.end_point)
    return Token(text if "\n" not in text else " ".join(text.split()), line, column,
                 end_line, end_column)


class _Columns:
    """tree-sitter counts columns in bytes; findings count characters."""

    def __init__(self, lines: Sequence[str], ascii_text: str | None) -> None:
        self.lines = lines
        self.ascii = ascii_text  # the whole text, when it is all ASCII

    def at(self, point: ts.Point) -> tuple[int, int]:
        row, byte = point
        text = self.lines[row] if row < len(self.lines) else ""
        if text.isascii():
            return row + 1, byte + 1
        return row + 1, len(text.encode("utf-8", "surrogateescape")[:byte].decode(
            "utf-8", "surrogateescape")) + 1


def _plain_tokens(lines: Sequence[str]) -> list[Token]:
    out = []
    for number, text in enumerate(lines, start=1):
        for match in _PLAIN.finditer(text.rstrip("\r\n")):
            out.append(Token(match.group(), number, match.start() + 1, number, match.end() + 1))
    return out
