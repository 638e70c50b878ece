"""Where a base position went in the head when the lines around it were rewritten (pure).

A file's line map pairs the lines a change left alone (up to whitespace); between two such
anchors lies a region the change rewrote. Aligning the tokens of the region's two sides
(`bot.tokens`: line breaks, indentation, trailing commas, semicolons and quote styles do not
count) says where each base token went: a signature a formatter wrapped over five lines, or an
expression it split, keeps every token, so a finding on one keeps its place.
"""

from __future__ import annotations

import bisect
import difflib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from bot.diff import LineMap
from bot.tokens import Token

# Token pairs compared per rewritten region at most: past it the region is left to the
# line-based passes (a region of equal tokens, the formatter's case, costs no comparison).
REGION_PAIRS = 2_000_000


@dataclass(frozen=True)
class Landing:
    """Where a base position arrived in the head."""

    line: int
    column: int
    exact: bool  # the token under the position arrived; False: only a neighbour on its line


class TokenMap:
    """Base positions to head positions, through the tokens of each rewritten region."""

    def __init__(self, base: Sequence[Token], head: Sequence[Token], lm: LineMap,
                 base_count: int) -> None:
        self.base = base
        self._base_lines = [t.line for t in base]
        self._head_lines = [t.line for t in head]
        self.partner: dict[int, Token] = {}  # base token index -> head token
        self.skipped = 0  # regions too large to align
        # A line of brackets alone (`}`, `)`, `],`) pairs with any other such line: as a region's
        # edge it could cut one rewritten statement in two, so only lines with a word anchor.
        worded = {t.line for t in base if any(c.isalnum() for c in t.text)}
        kept = sorted((b, h) for b, h in lm.base_to_head.items() if b in worded)
        anchors = [(0, 0), *kept, (base_count + 1, lm.head_count + 1)]
        for (b1, h1), (b2, h2) in itertools.pairwise(anchors):
            if b2 - b1 > 1 and h2 - h1 > 1:
                self._align(self._within(self._base_lines, b1, b2),
                            head[slice(*self._within(self._head_lines, h1, h2))])

    @staticmethod
    def _within(lines: list[int], first: int, last: int) -> tuple[int, int]:
        """Index range of the tokens starting strictly between two anchor lines."""
        return bisect.bisect_right(lines, first), bisect.bisect_left(lines, last)

    def _align(self, span: tuple[int, int], head: Sequence[Token]) -> None:
        start, stop = span
        a = [t.text for t in self.base[start:stop]]
        b = [t.text for t in head]
        if not a or not b:
            return
        if a == b:
            self.partner.update((start + k, token) for k, token in enumerate(head))
            return
        if len(a) * len(b) > REGION_PAIRS:
            self.skipped += 1
            return
        matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
        for i, j, n in matcher.get_matching_blocks():
            self.partner.update((start + i + k, head[j + k]) for k in range(n))

    def land(self, line: int, column: int) -> Landing | None:
        """The head position of a base position in a rewritten region, or None."""
        lo, hi = bisect.bisect_left(self._base_lines, line), bisect.bisect_right(self._base_lines, line)
        if lo == hi:
            return self._inside_long_token(line, column, lo)
        on_line = range(lo, hi)
        under = next((k for k in on_line if self.base[k].column <= column < self.base[k].end_column
                      or (self.base[k].end_line > line and self.base[k].column <= column)), None)
        if under is None:  # between tokens or past the last one: the nearest before, else after
            before = [k for k in on_line if self.base[k].column <= column]
            under = before[-1] if before else lo
        arrived = self.partner.get(under)
        if arrived is not None:
            token = self.base[under]
            return Landing(arrived.line, arrived.column + column - token.column, True)
        near = sorted((k for k in on_line if k in self.partner), key=lambda k: abs(k - under))
        if not near:
            return None
        return Landing(self.partner[near[0]].line, self.partner[near[0]].column, False)

    def _inside_long_token(self, line: int, column: int, after: int) -> Landing | None:
        """A line inside a token that spans lines (a docstring, a template string)."""
        k = after - 1
        if k < 0 or self.base[k].end_line < line:
            return None
        arrived = self.partner.get(k)
        if arrived is None:
            return None
        return Landing(arrived.line + line - self.base[k].line, column, True)
