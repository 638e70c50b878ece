"""The gate's decision table: findings first (exit 1), then what could not be checked (exit 4)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.errors import Exit
from bot.model import Finding, GatePolicy, ReviewResult, Scope, Severity, ToolRun, Verdict
from bot.publishing.gate import decide
from tests.forges.builders import finding, result, verdict

DEFAULT = GatePolicy()


def _v(f: Finding, scope: Scope) -> Verdict:
    return verdict(f, f"{scope}-{f.line}", scope)


def _result(*verdicts: Verdict, tools: tuple[ToolRun, ...] = (), unchecked: tuple[str, ...] = (),
            policy: GatePolicy = DEFAULT) -> ReviewResult:
    return replace(result("c" * 40, verdicts, ()), tools=tools, unchecked=unchecked, policy=policy)


ERROR = finding("a.py", 1, severity=Severity.ERROR)
WARNING = finding("a.py", 2, severity=Severity.WARNING)
OK_RUFF = ToolRun("ruff", "0.1", "ok")


@pytest.mark.parametrize(("res", "exit", "says"), [
    (_result(tools=(OK_RUFF,)), Exit.OK, ""),
    (_result(_v(ERROR, "introduced"), tools=(OK_RUFF,)), Exit.GATE, ""),
    (_result(_v(ERROR, "preexisting"), tools=(OK_RUFF,)), Exit.OK, ""),
    (_result(_v(WARNING, "introduced"), tools=(OK_RUFF,)), Exit.OK, ""),
    (_result(tools=(ToolRun("ruff", "0.1", "failed", "boom", ("head",)),)), Exit.UNCHECKED,
     "ruff failed at the head"),
    (_result(tools=(ToolRun("ruff", "0.1", "timeout", "slow", ("base", "head")),)), Exit.UNCHECKED,
     "ruff timed out at the head"),
    (_result(tools=(ToolRun("eslint", None, "missing", "not found"),)), Exit.UNCHECKED,
     "eslint is configured but not installed"),
    # At the merge base only: the head was checked, but its findings have no baseline.
    (_result(tools=(ToolRun("ruff", "0.1", "failed", "boom", ("base",)),)), Exit.OK, ""),
    (_result(_v(ERROR, "unclassified"), tools=(ToolRun("ruff", "0.1", "failed", "", ("base",)),)),
     Exit.UNCHECKED, "1 finding at or above `error` without a baseline (ruff failed at the merge base)"),
    (_result(_v(WARNING, "unclassified"), tools=(OK_RUFF,)), Exit.OK, ""),
    (_result(unchecked=("big.py: over the 10 MB size limit",)), Exit.UNCHECKED,
     "big.py: over the 10 MB size limit: not analysed"),
    # Findings that fail the gate take precedence over what was not checked.
    (_result(_v(ERROR, "introduced"), tools=(ToolRun("eslint", None, "missing"),)), Exit.GATE,
     "eslint is configured but not installed"),
    # tool-errors: warn reports, never fails.
    (_result(tools=(ToolRun("ruff", "0.1", "failed", "", ("head",)),), policy=GatePolicy("error", "warn")),
     Exit.OK, "ruff failed at the head"),
])
def test_decision(res: ReviewResult, exit: Exit, says: str) -> None:
    gate = decide(res)
    assert gate.exit == exit and gate.failed == (exit != Exit.OK)
    assert (says in gate.unchecked) if says else not gate.unchecked
    if gate.unchecked:
        assert "could not be fully checked" in gate.reason()


def test_a_chosen_policy_decides() -> None:
    failing = _result(tools=(ToolRun("ruff", "0.1", "failed", "", ("head",)),))
    assert decide(failing, GatePolicy("none", "fail")).exit == Exit.UNCHECKED  # level none: findings only
