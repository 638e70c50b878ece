"""The stable JSON document of `reviewbot review --format json` (documented in the README)."""

from __future__ import annotations

from typing import Any

from bot import codec
from bot.model import ReviewResult, Scope, Verdict
from bot.publishing.gate import decide

SCHEMA_VERSION = 1


def verdict_dict(v: Verdict) -> dict[str, Any]:
    """The codec's verdict (so `base` is the whole base finding and `fix` its edits) plus two
    keys derived for readers that only want to know whether a fix exists."""
    fix = v.finding.fix
    return {**codec.encode_verdict(v), "fixable": fix is not None,
            "fix_applicability": fix.applicability if fix else None}


def to_dict(result: ReviewResult) -> dict[str, Any]:
    gate = decide(result)
    return {
        "version": SCHEMA_VERSION,
        "base": result.merge_base,
        "head": result.head,
        "target": result.base_ref,
        "tools": [codec.encode_tool_run(t) for t in result.tools],
        "findings": [verdict_dict(v) for v in result.findings],
        "fixed": [verdict_dict(v) for v in result.fixed],
        "summary": {s: result.count(s) for s in Scope},
        "notes": list(result.notes),
        "gate": {"status": int(gate.exit), "failed": gate.failed, "fail_level": gate.fail_level,
                 "tool_errors": gate.tool_errors, "blocking": gate.blocking,
                 "unchecked": list(gate.unchecked)},
    }


def to_json(result: ReviewResult) -> str:
    """One line: without an indent `json` encodes in C, several times faster on a big review
    (`jq .` shows it indented)."""
    return codec.json_text(to_dict(result), separators=(",", ":")) + "\n"
