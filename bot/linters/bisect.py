"""Isolating the files a linter fails on: a batch that fails is retried by halves, so one file
that crashes the tool does not take the other files' findings with it.

Pure control flow over an `attempt` callback (which runs the tool on some paths and keeps what
it read when it succeeds); the number of extra runs is bounded.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

MAX_BUDGET_FACTOR = 4  # the retry budget grows per isolated file, up to this many times


@dataclass(frozen=True)
class Attempt:
    """How one invocation ended, and why when it did not end well."""

    kind: Literal["ok", "failed", "timeout"]
    message: str = ""


@dataclass(frozen=True)
class Failure:
    """Paths left without a result, and why (the tool's message, and how far isolating got)."""

    paths: tuple[str, ...]
    message: str
    timeout: bool = False
    isolated: bool = False  # the tool failed on these paths alone


def per_file_budget(count: int) -> int:
    """Extra runs allowed to isolate one failing file among `count`: two per halving, and two more."""
    return 2 * math.ceil(math.log2(max(count, 2))) + 2


def isolate(paths: Sequence[str], attempt: Callable[[tuple[str, ...]], Attempt]) -> list[Failure]:
    """Run `attempt` on `paths`; when it fails, retry by halves until the failing files stand
    alone. Returns what stays failed (empty when every path got a result).

    A timeout is never retried (it would multiply the time): the part that timed out and every
    part still waiting fail with it. When both halves of a part fail with the part's own
    message, the failure is not the files' (a broken configuration fails every part the same
    way): the part fails whole instead of costing a run per file.
    """
    whole = tuple(paths)
    first = attempt(whole)
    if first.kind == "ok":
        return []
    if first.kind == "timeout" or len(whole) == 1:
        return [Failure(whole, first.message, first.kind == "timeout", len(whole) == 1)]
    step = per_file_budget(len(whole))
    budget, runs = step, 0
    failures: list[Failure] = []
    pending: list[tuple[tuple[str, ...], Attempt]] = [(whole, first)]
    while pending:
        part, failed = pending.pop()
        if len(part) == 1:
            failures.append(Failure(part, failed.message, isolated=True))
            budget = min(budget + step, step * MAX_BUDGET_FACTOR)
            continue
        if runs + 2 > budget:
            failures.append(Failure(part, f"{failed.message}\n(gave up isolating the failing "
                                          f"file after {runs} extra runs)"))
            continue
        mid = len(part) // 2
        halves = (part[:mid], part[mid:])
        results: list[Attempt] = []
        for half in halves:
            runs += 1
            outcome = attempt(half)
            if outcome.kind == "timeout":
                failures.append(Failure(half, outcome.message, timeout=True))
                failures.extend(Failure(p, f"{a.message}\n(not retried after a timeout)")
                                for p, a in pending)
                rest = [(h, a) for h, a in zip(halves, results, strict=False) if a.kind != "ok"]
                rest += [(h, failed) for h in halves[len(results) + 1:]]
                failures.extend(Failure(h, f"{a.message}\n(not retried after a timeout)")
                                for h, a in rest)
                return failures
            results.append(outcome)
        bad = [(h, a) for h, a in zip(halves, results, strict=True) if a.kind != "ok"]
        if len(bad) == 2 and all(a.message == failed.message for _, a in bad):
            failures.append(Failure(part, failed.message))
            continue
        pending.extend(reversed(bad))  # the first half is looked at first
    return failures
