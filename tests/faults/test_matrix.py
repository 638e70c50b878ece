"""Every row of the fault matrix (tests/faults/matrix.py, printed by scripts/fault-matrix)
keeps its promises: no finding lost or reported twice, the exit status the README gives for
the fault, the declared linter's status naming it, nothing left behind, no traceback."""

from __future__ import annotations

import pytest

from tests.conftest import requires_root
from tests.faults.matrix import FAULTS, Fault, run, table


@pytest.mark.parametrize("fault", FAULTS, ids=lambda f: f.name)
def test_the_fault_breaks_no_promise(fault: Fault) -> None:
    if "disk" in fault.name:
        requires_root("mounting a tmpfs")
    row = run(fault)
    assert row.kept, "\n" + table([row])
