"""Where a base position went in the head when the lines around it were rewritten (pure).

A file's line map pairs the lines a change left alone (up to whitespace); between two such
anchors lies a region the change rewrote. Aligning the tokens of the region's two sides
(`bot.verdicts.tokens`: line breaks, indentation, trailing commas, semicolons and quote styles do not
count) says where each base token went: a signature a formatter wrapped over five lines, or an
expression it split, keeps every token, so a finding on one keeps its place.
"""

from __future__ import annotations

import bisect
import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.revisions.diff import LineMap

if TYPE_CHECKING:  # only annotations here: bot.verdicts.tokens loads where a file is read as tokens
    from bot.verdicts.tokens import Code, Token

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

    def __init__(self, base_code: Code, head_code: Code, lm: LineMap, base_count: int) -> None:
        self.code = base_code
        base, head = base_code.tokens, head_code.tokens
        self.base = base
        self._base_lines = base_code.lines
        self._head_lines = head_code.lines
        self.partner: dict[int, Token] = {}  # base token index -> head token
        self.skipped = 0  # regions too large to align
        # The line map's pairing of a line is trusted as a region's edge only where a formatter
        # cannot have made the line: a whole statement (it neither starts nor ends inside
        # brackets) with a word, once in its file. A fragment such as `foo(` or `alpha,` pairs
        # with its twin in another statement, a bracket line (`}`, `)`) with any other.
        (base_whole, base_once), (_, head_once) = statement_lines(base), statement_lines(head)
        kept = sorted((b, h) for b, h in lm.base_to_head.items() if b in base_once and h in head_once)
        self.whole = frozenset(base_whole)  # base lines a formatter cannot have made
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
        if a != b and len(a) * len(b) > REGION_PAIRS:
            self.skipped += 1
            return
        self.partner.update((start + i, head[j]) for i, j in self.code.aligned(a, b).items())

    def land(self, line: int, column: int) -> Landing | None:
        """The head position of a base position in a rewritten region, or None."""
        under = self.code.token_at(line, column)
        if under is None:
            return None
        token = self.base[under]
        arrived = self.partner.get(under)
        if arrived is not None:
            if token.line < line:  # a line inside a token that spans lines (a docstring)
                return Landing(arrived.line + line - token.line, column, True)
            return Landing(arrived.line, arrived.column + column - token.column, True)
        lo, hi = bisect.bisect_left(self._base_lines, line), bisect.bisect_right(self._base_lines, line)
        near = sorted((k for k in range(lo, hi) if k in self.partner), key=lambda k: abs(k - under))
        if not near:
            return None
        return Landing(self.partner[near[0]].line, self.partner[near[0]].column, False)


_OPEN, _CLOSE = frozenset("([{"), frozenset(")]}")


def statement_lines(tokens: Sequence[Token]) -> tuple[set[int], set[int]]:
    """The lines that hold a whole statement with a word (none starts or ends inside
    brackets), and those of them no other line repeats.

    Braces count as brackets too, so a line inside a C-family block is no anchor: its
    region is the block, whose tokens a formatter leaves equal (no comparison to pay)."""
    texts: dict[int, list[str]] = {}
    whole: set[int] = set()
    depth, line, start_depth = 0, 0, 0
    for t in tokens:
        if t.line != line:
            if line and start_depth == 0 and depth == 0:
                whole.add(line)
            line, start_depth = t.line, depth
        texts.setdefault(t.line, []).append(t.text)
        if t.text in _OPEN:
            depth += 1
        elif t.text in _CLOSE:
            depth = max(0, depth - 1)
    if line and start_depth == 0 and depth == 0:
        whole.add(line)
    worded = {n for n in whole if any(c.isalnum() for w in texts[n] for c in w)}
    count = Counter("\0".join(words) for words in texts.values())
    return worded, {n for n in worded if count["\0".join(texts[n])] == 1}
