"""Search one source text: parse, match, and turn byte ranges into the project's positions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import tree_sitter as ts

from bot.model import Span
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


class Positions:
    """Byte offset → 1-based line and code-point column, for one source."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        starts = [0]
        at = source.find(b"\n")
        while at != -1:
            starts.append(at + 1)
            at = source.find(b"\n", at + 1)
        self.starts = starts

    def line_index(self, offset: int) -> int:
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def point(self, offset: int) -> tuple[int, int]:
        row = self.line_index(offset)
        prefix = self.source[self.starts[row]:offset]
        return row + 1, len(prefix.decode("utf-8", errors="replace")) + 1

    def span(self, start: int, end: int) -> Span:
        line, col = self.point(start)
        end_line, end_col = self.point(end)
        return Span(line, col, end_line, end_col)


def _text(source: bytes, start: int, end: int) -> str:
    return source[start:end].decode("utf-8", errors="replace")


def _capture(source: bytes, pos: Positions, b: Binding) -> Capture:
    items = tuple(_text(source, s, e) for s, e in b.items)
    return Capture(_text(source, b.start, b.end), pos.span(b.start, b.end), b.multi, items)


def to_match(path: str, source: bytes, pos: Positions, raw: RawMatch) -> Match:
    captures = {name: _capture(source, pos, b) for name, b in sorted(raw.bindings.items())}
    return Match(path, pos.span(raw.start, raw.end), _text(source, raw.start, raw.end),
                 raw.start, raw.end, captures)


def prefilter(pattern: Pattern, source: bytes) -> bool:
    """False when the source lacks one of the pattern's literal tokens: it cannot match."""
    return all(lit in source for lit in pattern.literals)


def search_tree(pattern: Pattern, tree: ts.Tree, source: bytes, path: str = "") -> list[Match]:
    pos = Positions(source)
    return [to_match(path, source, pos, raw) for raw in find(pattern, tree, source)]


def search_source(pattern: Pattern, source: bytes, path: str = "") -> list[Match]:
    if not prefilter(pattern, source):
        return []
    return search_tree(pattern, parse(pattern.lang.grammar, source), source, path)
