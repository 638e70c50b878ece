"""The order findings are shown in, everywhere a reader sees several: the comments, the
summary's lists, a merge queue's word and the CI's annotations. Pure."""

from __future__ import annotations

from bot.model import Scope, Verdict


def priority(verdict: Verdict) -> tuple[int, int, str, int, int, str]:
    """Worst first, introduced before changed, then by position."""
    f = verdict.finding
    return (-int(f.severity), 0 if verdict.scope is Scope.INTRODUCED else 1, f.path, f.span.line,
            f.span.column, f.rule)
