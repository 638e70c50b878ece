"""The stable JSON document of `reviewbot review --format json` (documented in the README)."""

from __future__ import annotations

import json
from typing import Any

from bot.gate import decide
from bot.model import ReviewResult, Verdict

SCHEMA_VERSION = 1


def verdict_dict(v: Verdict) -> dict[str, Any]:
    f = v.finding
    return {
        "tool": f.tool, "rule": f.rule, "severity": f.severity.label, "message": f.message,
        "path": f.path, "line": f.span.line, "column": f.span.column,
        "end_line": f.span.end_line, "end_column": f.span.end_column,
        "scope": v.scope, "where": v.where, "touched": v.touched,
        "base": {"path": v.base.path, "line": v.base.line} if v.base is not None else None,
        "fingerprint": v.fingerprint, "fixable": f.fix is not None,
        "fix_applicability": f.fix.applicability if f.fix else None,
        "url": f.url, "reasons": list(v.reasons), "matched_by": v.matched_by,
    }


def to_dict(result: ReviewResult) -> dict[str, Any]:
    gate = decide(result)
    return {
        "version": SCHEMA_VERSION,
        "base": result.merge_base,
        "head": result.head,
        "target": result.base_ref,
        "tools": [{"name": t.name, "version": t.version, "status": t.status, "message": t.message,
                   "failed_at": list(t.failed_at)} for t in result.tools],
        "findings": [verdict_dict(v) for v in result.findings],
        "fixed": [verdict_dict(v) for v in result.fixed],
        "summary": {s: result.count(s) for s in
                    ("introduced", "changed", "preexisting", "fixed", "unclassified")},
        "notes": list(result.notes),
        "gate": {"status": int(gate.exit), "failed": gate.failed, "fail_level": gate.fail_level,
                 "tool_errors": gate.tool_errors, "blocking": gate.blocking,
                 "unchecked": list(gate.unchecked)},
    }


def to_json(result: ReviewResult) -> str:
    return json.dumps(to_dict(result), indent=2, ensure_ascii=False) + "\n"
