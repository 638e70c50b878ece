"""Search one source text: parse, match, and turn byte ranges into the project's positions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import tree_sitter as ts

from bot.model import Span
from bot.positions import LineIndex
from bot.structural.lang import parse
from bot.structural.match import Binding, RawMatch, find
from bot.structural.pattern import Pattern


@dataclass(frozen=True)
class Capture:
    text: str
    span: Span
    multi: bool
    items: tuple[str, ...] = ()  # the texts of each node a `$$$` took, separators included


@dataclass(frozen=True)
class Match:
    path: str
    span: Span
    text: str
    start: int  # byte offsets, for rewriting
    end: int
    captures: Mapping[str, Capture]


def _text(source: bytes, start: int, end: int) -> str:
    return source[start:end].decode("utf-8", errors="replace")


def _capture(source: bytes, pos: LineIndex, b: Binding) -> Capture:
    items = tuple(_text(source, s, e) for s, e in b.items)
    return Capture(_text(source, b.start, b.end), pos.span(b.start, b.end), b.multi, items)


def to_match(path: str, source: bytes, pos: LineIndex, raw: RawMatch) -> Match:
    captures = {name: _capture(source, pos, b) for name, b in sorted(raw.bindings.items())}
    return Match(path, pos.span(raw.start, raw.end), _text(source, raw.start, raw.end),
                 raw.start, raw.end, captures)


def prefilter(pattern: Pattern, source: bytes) -> bool:
    """False when the source lacks one of the pattern's literal tokens: it cannot match."""
    return all(lit in source for lit in pattern.literals)


def search_tree(pattern: Pattern, tree: ts.Tree, source: bytes, path: str = "") -> list[Match]:
    pos = LineIndex.of_bytes(source)
    return [to_match(path, source, pos, raw) for raw in find(pattern, tree, source)]


def search_source(pattern: Pattern, source: bytes, path: str = "") -> list[Match]:
    if not prefilter(pattern, source):
        return []
    return search_tree(pattern, parse(pattern.lang.grammar, source), source, path)
