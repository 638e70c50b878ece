"""Which commit brought a regression. Pure: git and the linters are behind the callables.

A finding on a line the range changed belongs to the commit that last wrote the line (blame),
when that commit is in the range. Otherwise (an untouched line: a definition deleted elsewhere
in the file, a type error two modules away) it belongs to the first commit of the range after
which it appears, found by linting at the range's commits: one by one when they are few,
by bisection when they are many (the finding is assumed to stay once it appears).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Literal

LINEAR_UP_TO = 4  # commits probed one by one; more are bisected

How = Literal["blame", "first-appearance", "unknown"]


@dataclass(frozen=True)
class Attribution:
    commit: str | None
    how: How
    probes: int = 0  # how many revisions were linted to find it


def by_blame(blamed: str | None, line_changed: bool, in_range: Collection[str]) -> str | None:
    """The blamed commit when it may be trusted: the line changed in the range and the commit
    that wrote it is one of the range's."""
    if blamed is not None and line_changed and blamed in in_range:
        return blamed
    return None


def first_appearance(commits: Sequence[str], present: Callable[[str], bool]
                     ) -> tuple[str | None, int]:
    """The first of `commits` (oldest first) at which `present` holds, and the probes made.
    The last commit is the head, where the finding is known to be: it is never probed."""
    if not commits:
        return None, 0
    probes = 0
    if len(commits) <= LINEAR_UP_TO:
        for commit in commits[:-1]:
            probes += 1
            if present(commit):
                return commit, probes
        return commits[-1], probes
    low, high = 0, len(commits) - 1  # invariant: present at `high`, absent before `low`
    while low < high:
        middle = (low + high) // 2
        probes += 1
        if present(commits[middle]):
            high = middle
        else:
            low = middle + 1
    return commits[high], probes


def attribute(blamed: str | None, line_changed: bool, commits: Sequence[str],
              present: Callable[[str], bool]) -> Attribution:
    """The commit that introduced a finding at the head of `commits` (the range, oldest first)."""
    chosen = by_blame(blamed, line_changed, set(commits))
    if chosen is not None:
        return Attribution(chosen, "blame")
    commit, probes = first_appearance(commits, present)
    return Attribution(commit, "first-appearance" if commit else "unknown", probes)
