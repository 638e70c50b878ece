"""The gate: does this review fail the build? (exit status, check conclusion)"""

from __future__ import annotations

from bot.model import ReviewResult, Severity, Verdict

LEVELS = {"info": Severity.INFO, "warning": Severity.WARNING, "error": Severity.ERROR}


def blocking(verdict: Verdict, fail_level: str) -> bool:
    """An introduced finding, or a changed one whose severity went up, at or above the level."""
    if fail_level == "none":
        return False
    level = LEVELS[fail_level]
    if verdict.finding.severity < level:
        return False
    return verdict.scope == "introduced" or (verdict.scope == "changed" and verdict.severity_up)


def blocking_findings(result: ReviewResult, fail_level: str) -> list[Verdict]:
    return [v for v in result.findings if blocking(v, fail_level)]


def gate_fails(result: ReviewResult, fail_level: str) -> bool:
    return bool(blocking_findings(result, fail_level))
