"""The gate: does this review fail the build? (exit status, check conclusion)

Two ways to fail, in this order: a finding the change made worse at or above the fail level
(exit 1), or a change that was not fully checked (exit 4): a configured tool that failed, timed
out or is not installed at the head, findings at or above the level with no baseline because a
tool failed at the merge base, or a changed file too large to analyse. `tool-errors: warn`
turns the second into a warning. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import Exit
from bot.model import FailLevel, GatePolicy, ReviewResult, Scope, ToolErrors, Verdict


def blocking(verdict: Verdict, fail_level: FailLevel) -> bool:
    """An introduced finding, or a changed one whose severity went up, at or above the level."""
    if not fail_level.gates(verdict.finding.severity):
        return False
    return verdict.scope is Scope.INTRODUCED or (verdict.scope is Scope.CHANGED and verdict.severity_up)


def blocking_findings(result: ReviewResult, fail_level: FailLevel) -> list[Verdict]:
    return [v for v in result.findings if blocking(v, fail_level)]


def unchecked(result: ReviewResult, fail_level: FailLevel) -> list[str]:
    """Why the change was not fully checked, one line each; empty when it was."""
    out = []
    for tool in result.tools:
        if tool.status == "missing":
            out.append(f"{tool.name} is configured but not installed")
        elif tool.status in ("failed", "timeout") and "head" in tool.failed_at:
            what = "timed out" if tool.status == "timeout" else "failed"
            out.append(f"{tool.name} {what} at the head")
    blind = [v for v in result.findings
             if v.scope is Scope.UNCLASSIFIED and fail_level.gates(v.finding.severity)]
    if blind:
        tools = ", ".join(sorted({v.finding.tool for v in blind}))
        out.append(f"{len(blind)} finding{'s' * (len(blind) != 1)} at or above `{fail_level}` "
                   f"without a baseline ({tools} failed at the merge base)")
    out += [f"{entry}: not analysed" for entry in result.unchecked]
    return out


@dataclass(frozen=True)
class Gate:
    """The gate's decision. `blocking` counts the findings that fail it; `unchecked` says
    what could not be checked."""

    blocking: int
    fail_level: FailLevel
    unchecked: tuple[str, ...] = ()
    tool_errors: ToolErrors = "fail"

    @property
    def exit(self) -> Exit:
        if self.blocking:
            return Exit.GATE
        if self.unchecked and self.tool_errors == "fail":
            return Exit.UNCHECKED
        return Exit.OK

    @property
    def failed(self) -> bool:
        return self.exit != Exit.OK

    def reason(self) -> str:
        """One line for logs, titles and summaries."""
        parts = []
        if self.blocking:
            parts.append(f"{self.blocking} finding{'s' * (self.blocking != 1)} made worse at or "
                         f"above `{self.fail_level}`")
        if self.unchecked:
            verb = "fails" if self.tool_errors == "fail" and not self.blocking else "reported"
            parts.append(f"the change could not be fully checked ({verb}): "
                         + "; ".join(self.unchecked))
        return "; ".join(parts) or f"nothing the change made worse at or above `{self.fail_level}`"


def decide(result: ReviewResult, policy: GatePolicy | None = None) -> Gate:
    """The gate for `result` under `policy` (default: the one the review was run with)."""
    policy = policy or result.policy
    return Gate(len(blocking_findings(result, policy.fail_level)), policy.fail_level,
                tuple(unchecked(result, policy.fail_level)), policy.tool_errors)

