"""Isolating the files a tool fails on, with a bounded number of runs (pure control flow; the
real-tool cases are in tests/run/test_pipeline_faults.py)."""

from __future__ import annotations

from collections.abc import Callable

from bot.linters.bisect import Attempt, isolate, per_file_budget

PATHS = tuple(f"f{i:03d}.py" for i in range(64))


def tool(bad: set[str], same_message: bool = False) -> tuple[Callable[[tuple[str, ...]], Attempt], list[int]]:
    runs: list[int] = []

    def attempt(paths: tuple[str, ...]) -> Attempt:
        runs.append(len(paths))
        hit = sorted(bad & set(paths))
        if not hit:
            return Attempt("ok")
        return Attempt("failed", "boom" if same_message else f"crashed on {hit[0]}")

    return attempt, runs


def test_one_bad_file_is_isolated_in_logarithmic_runs() -> None:
    attempt, runs = tool({"f037.py"})
    [failure] = isolate(PATHS, attempt)
    assert failure.paths == ("f037.py",) and failure.isolated
    assert failure.message == "crashed on f037.py"
    assert len(runs) - 1 <= per_file_budget(len(PATHS))


def test_two_bad_files_are_both_isolated() -> None:
    attempt, runs = tool({"f000.py", "f063.py"})
    failures = isolate(PATHS, attempt)
    assert sorted(f.paths for f in failures) == [("f000.py",), ("f063.py",)]
    assert len(runs) - 1 <= 2 * per_file_budget(len(PATHS))


def test_the_same_failure_everywhere_is_not_split_further() -> None:
    attempt, runs = tool(set(PATHS), same_message=True)
    [failure] = isolate(PATHS, attempt)
    assert failure.paths == PATHS and not failure.isolated
    assert runs == [64, 32, 32]


def test_the_budget_runs_out_and_says_so() -> None:
    attempt, runs = tool(set(PATHS[::2]))  # every other file fails, each with its own message
    failures = isolate(PATHS, attempt)
    assert {p for f in failures for p in f.paths} >= set(PATHS[::2])
    assert any("gave up isolating the failing file after" in f.message for f in failures)
    assert len(runs) - 1 <= 4 * per_file_budget(len(PATHS)) + 2


def test_a_timeout_stops_the_retries() -> None:
    calls: list[tuple[str, ...]] = []

    def attempt(paths: tuple[str, ...]) -> Attempt:
        calls.append(paths)
        return Attempt("timeout", "slow") if len(calls) > 1 else Attempt("failed", "crash")

    failures = isolate(PATHS, attempt)
    assert len(calls) == 2
    assert {p for f in failures for p in f.paths} == set(PATHS)
    assert any(f.timeout for f in failures)
    assert isolate(PATHS, lambda p: Attempt("timeout", "slow"))[0].paths == PATHS
