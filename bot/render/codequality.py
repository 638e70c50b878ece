"""GitLab's Code Quality report (a CodeClimate subset) for `artifacts:reports:codequality`. Pure.

One entry per finding the change made worse (introduced or changed), the same findings the
review comments on: the report comes from merge request pipelines, so the widget has no
target-branch report to subtract pre-existing findings with. Fingerprints are the core's,
which survive line shifts and re-runs, hashed to a fixed-length hex string.
"""

from __future__ import annotations

import hashlib
from typing import Any

from bot import codec
from bot.model import ReviewResult, Severity, Verdict

SEVERITIES = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}
DESCRIPTION_LIMIT = 4_000


def to_code_quality(result: ReviewResult) -> list[dict[str, Any]]:
    return [_issue(v) for v in sorted(result.findings, key=lambda v: v.finding.sort_key())
            if v.scope.commented]


def dumps(result: ReviewResult) -> bytes:
    """The report as GitLab reads it: one JSON array, UTF-8 without a BOM."""
    return (codec.json_text(to_code_quality(result), indent=2) + "\n").encode()


def _issue(verdict: Verdict) -> dict[str, Any]:
    f = verdict.finding
    check = f"{f.tool}/{f.rule}" if f.rule else f.tool
    description = f"{check}: {f.message}" if f.message else check
    return {
        "type": "issue",
        "description": description[:DESCRIPTION_LIMIT],
        "check_name": check,
        "fingerprint": hashlib.sha256(verdict.fingerprint.encode()).hexdigest()[:32],
        "severity": SEVERITIES[f.severity],
        "categories": ["Style"],
        "location": {"path": f.path, "lines": {"begin": max(1, f.span.line)}},
    }
