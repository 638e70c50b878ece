"""Where the lines one file lost went in another file of the same change (pure functions).

Code moved between two changed files shows in each file's own line map only as lines removed
at the source and lines added (or modified) at the destination. Aligning one file's removed
lines with another's added lines, the way `bot.revisions.diff` pairs the two sides of a hunk, gives a
line map for the move: lines carried verbatim (up to whitespace and suppression comments), and
lines edited inside the moved block, paired by position between verbatim ones or by similarity
at its edges, and lines edited and put elsewhere inside the block, by similarity.
"""

from __future__ import annotations

import difflib
import itertools
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.revisions.diff import _similar_pairs

# A normalised line this long says something on its own (the classifier's low_info bound):
# only such lines start a verbatim run, so blank lines and `pass` never make a move by themselves.
INFORMATIVE = 12
# Alignment is monotone; each further round finds blocks that moved in another order.
ROUNDS = 8
SIMILAR = 0.6  # as bot.revisions.diff pairs modified lines
COMMON = 8  # a line added to more files than this selects none of them
# Line pairs aligned in one review at most (SonarQube bounds its block matching the same way):
# past it, moves are not traced and the classifier says so.
BUDGET = 4_000_000
# Comparisons spent per move on lines edited and reordered inside the moved block.
REORDER_PAIRS = 400  # some 30 ms at worst (difflib ratios of 40-character lines)


@dataclass(frozen=True)
class Lines:
    """The lines a file pair lost (base side) or gained (head side), in file order."""

    key: str  # the file pair's key: its head path (a deleted file has its own key)
    numbers: tuple[int, ...]  # line numbers in the file
    norms: tuple[str, ...]  # `bot.revisions.diff.norm` of each


@dataclass(frozen=True)
class Move:
    """Lines of the file pair `source` found among the added lines of `target`."""

    source: str
    target: str
    verbatim: Mapping[int, tuple[int, int]]  # base line -> (head line, length of its run)
    edited: Mapping[int, int]  # base line -> head line, edited inside the moved block
    carried: int  # how many lines arrived verbatim: the move's weight


def _informative(text: str) -> bool:
    return len(text) >= INFORMATIVE


def _verbatim(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """Index pairs of equal lines, in rounds: each round aligns what earlier rounds left."""
    free_a, free_b = list(range(len(a))), list(range(len(b)))
    found: list[tuple[int, int]] = []
    for _ in range(ROUNDS):
        matcher = difflib.SequenceMatcher(
            lambda text: not _informative(text), [a[i] for i in free_a], [b[j] for j in free_b],
            autojunk=False)
        new = [pair for x, y, n in matcher.get_matching_blocks()
               if any(_informative(a[free_a[x + k]]) for k in range(n))
               for pair in ((free_a[x + k], free_b[y + k]) for k in range(n))]
        if not new:
            break
        found += new
        used_a, used_b = {i for i, _ in new}, {j for _, j in new}
        free_a = [i for i in free_a if i not in used_a]
        free_b = [j for j in free_b if j not in used_b]
    return sorted(found)


def _runs(lost: Lines, gained: Lines, pairs: Sequence[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """Pairs grouped into runs of lines consecutive in both files."""
    runs: list[list[tuple[int, int]]] = []
    for i, j in pairs:
        if runs:
            pi, pj = runs[-1][-1]
            if (i == pi + 1 and j == pj + 1 and lost.numbers[i] == lost.numbers[pi] + 1
                    and gained.numbers[j] == gained.numbers[pj] + 1):
                runs[-1].append((i, j))
                continue
        runs.append([(i, j)])
    return runs


def _contiguous(numbers: Sequence[int], first: int, last: int) -> bool:
    return numbers[last] - numbers[first] == last - first


def _adjacent(numbers: Sequence[int], x: int, y: int) -> bool:
    return abs(numbers[x] - numbers[y]) == 1


def _edited(lost: Lines, gained: Lines, runs: Sequence[Sequence[tuple[int, int]]]
            ) -> dict[int, int]:
    """Index pairs of lines edited inside a moved block: between two runs that follow each
    other in both files (by position when the gaps are the same size, else by similarity),
    just outside a run while the lines stay similar, then lines edited and reordered."""
    used_a = {i for run in runs for i, _ in run}
    used_b = {j for run in runs for _, j in run}
    out: dict[int, int] = {}
    for before, after in itertools.pairwise(runs):
        (i1, j1), (i2, j2) = before[-1], after[0]
        if j2 <= j1 + 1 or i2 <= i1 + 1:
            continue
        if not (_contiguous(lost.numbers, i1, i2) and _contiguous(gained.numbers, j1, j2)):
            continue
        if i2 - i1 == j2 - j1:
            pairs = [(i1 + k, j1 + k) for k in range(1, i2 - i1)]
        else:
            pairs = _similar_pairs(lost.norms, gained.norms, i1 + 1, i2, j1 + 1, j2)
        for i, j in pairs:
            if i not in used_a and j not in used_b:  # a reordered run may sit in the gap
                out[i] = j
    used_a |= set(out)
    used_b |= set(out.values())
    for run in runs:
        for (i, j), step in ((run[0], -1), (run[-1], 1)):
            while True:
                i, j = i + step, j + step
                if not (0 <= i < len(lost.norms) and 0 <= j < len(gained.norms)):
                    break
                if i in used_a or j in used_b or not (
                        _adjacent(lost.numbers, i, i - step) and _adjacent(gained.numbers, j, j - step)):
                    break
                ratio = difflib.SequenceMatcher(None, lost.norms[i], gained.norms[j],
                                                autojunk=False).ratio()
                if ratio < SIMILAR:
                    break
                out[i] = j
                used_a.add(i)
                used_b.add(j)
    out.update(_reordered(lost, gained, runs, used_a, used_b))
    return out


def _reordered(lost: Lines, gained: Lines, runs: Sequence[Sequence[tuple[int, int]]],
               used_a: set[int], used_b: set[int]) -> dict[int, int]:
    """Lines both edited and moved to another place inside one moved block: what is left
    between the block's first and last lines on both sides, paired by similarity, the most
    similar first (ties: the earlier lines). Only where each side of the block is one stretch
    of the file, and within REORDER_PAIRS comparisons. Marks what it pairs as used."""
    lo_a, hi_a = runs[0][0][0], runs[-1][-1][0]  # runs are in the source's order
    lo_b, hi_b = min(run[0][1] for run in runs), max(run[-1][1] for run in runs)
    if not (_contiguous(lost.numbers, lo_a, hi_a) and _contiguous(gained.numbers, lo_b, hi_b)):
        return {}
    free_a = [i for i in range(lo_a, hi_a + 1) if i not in used_a and _informative(lost.norms[i])]
    free_b = [j for j in range(lo_b, hi_b + 1) if j not in used_b and _informative(gained.norms[j])]
    if not free_a or not free_b or len(free_a) * len(free_b) > REORDER_PAIRS:
        return {}
    scored = []
    for i in free_a:
        matcher = difflib.SequenceMatcher(None, b=lost.norms[i], autojunk=False)
        for j in free_b:
            matcher.set_seq1(gained.norms[j])
            if (matcher.real_quick_ratio() >= SIMILAR and matcher.quick_ratio() >= SIMILAR
                    and matcher.ratio() >= SIMILAR):
                scored.append((-matcher.ratio(), i, j))
    out: dict[int, int] = {}
    for _, i, j in sorted(scored):
        if i not in used_a and j not in used_b:
            out[i] = j
            used_a.add(i)
            used_b.add(j)
    return out


def align(lost: Lines, gained: Lines) -> Move | None:
    """The move from `lost` into `gained`, if any informative line arrived verbatim."""
    runs = _runs(lost, gained, _verbatim(lost.norms, gained.norms))
    if not runs:
        return None
    verbatim = {lost.numbers[i]: (gained.numbers[j], len(run)) for run in runs for i, j in run}
    edited = {lost.numbers[i]: gained.numbers[j] for i, j in _edited(lost, gained, runs).items()}
    return Move(lost.key, gained.key, verbatim, edited, len(verbatim))


def moves(lost: Sequence[Lines], gained: Sequence[Lines], budget: int | None = None
           ) -> tuple[list[Move], int]:
    """Every move from a file pair that lost lines into another that gained them, in key
    order, and how many pairs were left unaligned because the work would exceed `budget`
    (lines times lines). Only pairs sharing an informative line that few files gained are
    aligned: a line added to many files (a common import) is no sign of a move."""
    budget = BUDGET if budget is None else budget
    where: dict[str, set[str]] = defaultdict(set)
    by_key = {g.key: g for g in gained}
    for g in gained:
        for text in g.norms:
            if _informative(text):
                where[text].add(g.key)
    out: list[Move] = []
    skipped = 0
    for source in sorted(lost, key=lambda s: s.key):
        targets = {key for text in source.norms if _informative(text)
                   for key in where.get(text, ()) if len(where[text]) <= COMMON}
        for key in sorted(targets - {source.key}):
            cost = len(source.norms) * len(by_key[key].norms)
            if cost > budget:
                skipped += 1
                continue
            budget -= cost
            move = align(source, by_key[key])
            if move is not None:
                out.append(move)
    return out, skipped
