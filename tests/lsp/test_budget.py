"""The deadline a server's progress moves, within its bound (pure)."""

from __future__ import annotations

import threading

from bot.lsp.budget import Budget, remaining


def test_progress_starts_the_timeout_again_up_to_the_bound() -> None:
    budget = Budget.of(10.0, 30.0, now=100.0)
    assert budget.deadline(0.0) == 110.0  # no progress yet: the timeout from the start
    assert budget.deadline(105.0) == 115.0
    assert budget.deadline(135.0) == 140.0  # never past the bound
    assert Budget.of(10.0, -5.0, now=0.0).bound == 10.0


def test_why_says_what_the_time_ran_out_on() -> None:
    budget = Budget.of(10.0, 30.0, now=100.0)
    assert budget.why(110.0, 0.0, None) == "it showed no progress"
    assert budget.why(125.0, 115.0, None) == "no progress shown for 10s"
    assert budget.why(125.0, 115.0, "Indexing") == "no progress shown for 10s (last: Indexing)"
    assert budget.why(140.0, 139.0, "Indexing") == (
        "still showing progress (Indexing) after 40s, the most a server may take while it "
        "works (10s timeout + 30s)")


def test_remaining_is_never_negative() -> None:
    assert remaining(-1.0) == 0.0
    assert remaining(lambda: 2.5) == 2.5


def test_a_stopped_budget_has_no_time_left() -> None:
    stop = threading.Event()
    budget = Budget.of(10.0, 30.0, now=100.0, stop=stop)
    assert budget.deadline(105.0) == 115.0
    stop.set()
    assert budget.deadline(105.0) == 100.0
