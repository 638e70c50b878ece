"""A file's code as a sequence of normalised tokens (pure functions).

A formatter moves line breaks and indentation, adds or drops trailing commas and semicolons,
and swaps quote styles; it keeps the tokens. Comparing two revisions token by token therefore
sees through a reflow that a line-by-line comparison takes for new code. Tokens come from the
tree-sitter grammar of the file's language (the grammars `bot.structural.lang` bundles), or
from a plain lexer for files no grammar covers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath

import tree_sitter as ts

from bot.structural import lang

# Grammars for the files linters check that structural search has no patterns for.
_EXTRA_GRAMMARS = {".css": "css", ".scss": "scss"}
# Punctuation a formatter adds or removes without changing the code: a `,` before a closing
# bracket (a "magic" trailing comma), and statement-ending semicolons (JavaScript's ASI style).
_CLOSERS = frozenset({")", "]", "}", ">"})
_QUOTE = re.compile(r"[rRbBuUfF]{0,2}('''|\"\"\"|'|\")")
_PLAIN = re.compile(r"""[A-Za-z_$\d][\w$]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|\S""")


@dataclass(frozen=True)
class Token:
    """One token: its normalised text and where it starts and ends (1-based, characters)."""

    text: str
    line: int
    column: int
    end_line: int
    end_column: int


def grammar_for(path: str) -> str | None:
    suffix = PurePath(path).suffix.lower()
    found = lang.for_path(path)
    return found.grammar if found is not None else _EXTRA_GRAMMARS.get(suffix)


def tokenize(path: str, lines: Sequence[str]) -> tuple[Token, ...]:
    """The normalised tokens of a file given as its lines (line ends kept)."""
    grammar = grammar_for(path)
    raw = _tree_tokens(grammar, lines) if grammar else _plain_tokens(lines)
    return _normalised(raw)


def _normalised(raw: Sequence[Token]) -> tuple[Token, ...]:
    out: list[Token] = []
    for i, token in enumerate(raw):
        if token.text == ";":
            continue
        if token.text == "," and i + 1 < len(raw) and raw[i + 1].text in _CLOSERS:
            continue
        if _QUOTE.fullmatch(token.text):
            token = Token('"', token.line, token.column, token.end_line, token.end_column)
        out.append(token)
    return tuple(out)


def _tree_tokens(grammar: str, lines: Sequence[str]) -> list[Token]:
    source = "".join(lines).encode("utf-8", "surrogateescape")
    tree = lang.parse(grammar, source)
    columns = _Columns(lines)
    out: list[Token] = []
    cursor = tree.walk()
    while True:
        node = cursor.node
        assert node is not None
        leaf = node.child_count == 0 or _is_string_piece(node)
        if leaf:
            if node.start_byte < node.end_byte and "comment" not in node.type:
                out.append(_token(node, source, columns))
        elif cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return out


def _is_string_piece(node: ts.Node) -> bool:
    """An escape sequence or interpolation inside a string is part of the string's text."""
    return node.type in ("string_content", "string_fragment", "escape_sequence")


def _token(node: ts.Node, source: bytes, columns: _Columns) -> Token:
    text = source[node.start_byte:node.end_byte].decode("utf-8", "surrogateescape")
    line, column = columns.at(node.start_point)
    end_line, end_column = columns.at(node.end_point)
    return Token(text if "\n" not in text else " ".join(text.split()), line, column,
                 end_line, end_column)


class _Columns:
    """tree-sitter counts columns in bytes; findings count characters."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines

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
