"""SARIF 2.1.0 for code-scanning upload. Pure.

`partialFingerprints` carry the core's fingerprint, which survives line shifts, so code
scanning tracks an alert across pushes instead of closing and reopening it.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from bot.model import ReviewResult, Scope, Severity, Verdict

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT_KEY = "reviewbot/v1"
LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
BASELINE = {"introduced": "new", "changed": "updated", "preexisting": "unchanged"}


def to_sarif(result: ReviewResult, version: str = "0.1.0") -> dict[str, Any]:
    rules: dict[str, dict[str, Any]] = {}
    results = []
    for verdict in sorted(result.findings, key=lambda v: v.finding.sort_key()):
        rule_id = f"{verdict.finding.tool}/{verdict.finding.rule}"
        if rule_id not in rules:
            rules[rule_id] = _rule(rule_id, verdict)
        results.append(_result(rule_id, verdict))
    tools = {t.name: t.version for t in result.tools}
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "reviewbot", "version": version,
                                "informationUri": "https://github.com/", "rules": list(rules.values()),
                                "properties": {"tools": tools}}},
            "automationDetails": {"id": "reviewbot/"},
            "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "repository root"}}},
            # Fixed findings are not results (code scanning would show them as alerts).
            "properties": {"mergeBase": result.merge_base, "head": result.head,
                           "fixed": result.count(Scope.FIXED)},
            "results": results,
        }],
    }


def dumps(result: ReviewResult) -> bytes:
    """The document as code scanning reads it: indented JSON, UTF-8."""
    return (json.dumps(to_sarif(result), indent=2) + "\n").encode()


def relative_uri(path: str) -> str:
    """A repository path as a relative URI reference: spaces, `#`, `?`, `%` and non-ASCII
    percent-encoded (a `#` would otherwise start a fragment)."""
    return quote(path, safe="/!$&'()*+,;=:@-._~")


def _rule(rule_id: str, verdict: Verdict) -> dict[str, Any]:
    rule: dict[str, Any] = {"id": rule_id, "name": verdict.finding.rule or verdict.finding.tool,
                            "shortDescription": {"text": rule_id}}
    if verdict.finding.url:
        rule["helpUri"] = verdict.finding.url
    return rule


def _result(rule_id: str, verdict: Verdict) -> dict[str, Any]:
    f = verdict.finding
    region: dict[str, Any] = {"startLine": max(1, f.span.line)}
    if not f.file_level:
        region.update(startColumn=max(1, f.span.column), endLine=max(f.span.line, f.span.end_line),
                      endColumn=max(1, f.span.end_column))
    out: dict[str, Any] = {
        "ruleId": rule_id,
        "level": LEVELS[f.severity],
        "message": {"text": f.message},
        "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": relative_uri(f.path), "uriBaseId": "%SRCROOT%"},
            "region": region}}],
        "partialFingerprints": {FINGERPRINT_KEY: verdict.fingerprint},
        "properties": {"scope": verdict.scope},
    }
    if verdict.scope in BASELINE:
        out["baselineState"] = BASELINE[verdict.scope]
    return out
