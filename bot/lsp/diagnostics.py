"""LSP diagnostics (plain dicts) → `Finding`s. Pure: no server, no disk."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from bot import positions
from bot.lsp.servers import ServerSpec
from bot.model import Finding, Severity

# LSP DiagnosticSeverity: 1 error, 2 warning, 3 information, 4 hint. Hints are editor fades
# ("x is not accessed"), not findings.
_SEVERITY = {1: Severity.ERROR, 2: Severity.WARNING, 3: Severity.INFO}
_TSSERVER_SEVERITY = {"error": 1, "warning": 2, "message": 3, "suggestion": 4}


def rule_of(spec: ServerSpec, diagnostic: dict[str, Any]) -> str:
    code = diagnostic.get("code")
    if isinstance(code, dict):  # old rust-analyzer / rustc shape {value, target}
        code = code.get("value")
    if code is None or code == "" or code in spec.vague_codes:
        return str(diagnostic.get("source") or spec.name)
    return f"{spec.rule_prefix}{code}"


def setup_notes(spec: ServerSpec, diagnostics: Sequence[dict[str, Any]]) -> list[str]:
    """The server's notes that it cannot analyse the file (outside every build, ...): such a
    file is "not checkable", never "clean"."""
    return [str(d.get("message", "")) for d in diagnostics
            if any(re.search(p, str(d.get("message", ""))) for p in spec.ignore)]


def to_finding(spec: ServerSpec, diagnostic: dict[str, Any], path: str,
               lines: Sequence[str]) -> Finding | None:
    """One finding, or None for hints and the server's notes about its own setup."""
    severity = _SEVERITY.get(int(diagnostic.get("severity") or 1))
    message = str(diagnostic.get("message", "")).replace("\u00a0", " ").rstrip()
    if severity is None or any(re.search(p, message) for p in spec.ignore):
        return None
    if spec.sources and diagnostic.get("source") not in spec.sources:
        return None
    rng = diagnostic.get("range") or {}
    start, end = rng.get("start") or {}, rng.get("end") or {}
    span = positions.lsp_range_to_span(
        lines, (int(start.get("line", 0)), int(start.get("character", 0))),
        (int(end.get("line", start.get("line", 0))), int(end.get("character", 0))))
    description = diagnostic.get("codeDescription")
    url = description.get("href") if isinstance(description, dict) else None
    return Finding(tool=spec.name, rule=rule_of(spec, diagnostic), severity=severity,
                   message=message, path=path, span=span, url=url)


def findings_for(spec: ServerSpec, diagnostics: Sequence[dict[str, Any]], path: str,
                 text: str) -> list[Finding]:
    lines = positions.split_lines(text)
    out = [f for d in diagnostics if (f := to_finding(spec, d, path, lines)) is not None]
    return sorted(set(out), key=Finding.sort_key)


def from_tsserver(diagnostic: dict[str, Any]) -> dict[str, Any]:
    """A tsserver protocol diagnostic ({start:{line,offset}}, category) in LSP shape."""

    def position(point: Any) -> dict[str, int]:
        point = point if isinstance(point, dict) else {}
        line, character = positions.tsserver_to_lsp(int(point.get("line", 1)),
                                                    int(point.get("offset", 1)))
        return {"line": line, "character": character}

    return {
        "range": {"start": position(diagnostic.get("start")),
                  "end": position(diagnostic.get("end") or diagnostic.get("start"))},
        "severity": _TSSERVER_SEVERITY.get(str(diagnostic.get("category")), 1),
        "code": diagnostic.get("code"),
        "message": str(diagnostic.get("text", "")),
        "source": "typescript",
    }
