"""Every forge row of the fault matrix (tests/faults/forges.py) keeps its promise: after the
fault and a clean re-run, no finding, answer, label or issue lost, none doubled, the re-run
ends well, the fault met the write, every request valid for the forge, no traceback."""

from __future__ import annotations

import pytest

from tests.faults.forges import CASES, Case, run, table


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_the_write_loses_and_doubles_nothing(case: Case) -> None:
    row = run(case)
    assert row.kept, "\n" + table([row])
