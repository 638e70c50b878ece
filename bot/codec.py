"""One JSON shape for every value a review produces, and the one decoder that checks it.

Pure. `encode_*` turn the frozen values of `bot.model` into JSON-compatible dicts; `decode_*`
turn untrusted JSON back into values or raise `CodecError` naming the field that is wrong
(`findings[3].line: expected a positive integer`). Every key is required and unknown keys are
refused, so a shape change is a visible version change for each user: the findings cache
(`bot.cache`), `review --format json` (`bot.publishing.report`) and the analysis artifact
(`bot.run.artifact`, whose JSON Schema is `bot/schemas/analysis-v1.schema.json`).

Shapes: a Span's four keys sit flat in the object that owns it (a finding, an edit); a
verdict is its finding's keys plus its own; sets are sorted lists, a FileChange's
`base_lines` a sorted list of [head line, base line] pairs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from enum import StrEnum
from typing import Any, TypeVar

from bot.errors import CodecError
from bot.model import (
    Applicability,
    Edit,
    FailLevel,
    FileChange,
    Finding,
    Fix,
    GatePolicy,
    ReviewResult,
    Scope,
    Severity,
    Span,
    ToolRun,
    Verdict,
)

T = TypeVar("T")
E = TypeVar("E", bound=StrEnum)
JsonObject = dict[str, Any]

SEVERITIES = {s.label: s for s in Severity}
WHERES = ("diff", "elsewhere")
TOOL_STATUSES = ("ok", "missing", "failed", "timeout", "skipped")
SIDES = ("base", "head")
FILE_STATUSES = ("added", "modified", "deleted", "renamed", "copied")
TOOL_ERRORS = ("fail", "warn")

SPAN_KEYS = ("line", "column", "end_line", "end_column")
EDIT_KEYS = ("path", *SPAN_KEYS, "new_text")
FIX_KEYS = ("description", "edits", "applicability")
FINDING_KEYS = ("tool", "rule", "severity", "message", "path", *SPAN_KEYS, "url", "fix", "file_level")
VERDICT_KEYS = (*FINDING_KEYS, "scope", "fingerprint", "where", "touched", "base", "reasons",
                "matched_by")
TOOL_RUN_KEYS = ("name", "version", "status", "message", "failed_at")
# Keys a reader accepts missing: written by later versions than the ones above.
TOOL_RUN_OPTIONAL = ("seconds",)
CHANGE_KEYS = ("path", "old_path", "status", "changed_lines", "hunk_lines", "binary", "similarity",
               "base_lines")
POLICY_KEYS = ("fail_level", "tool_errors")
RESULT_KEYS = ("base_ref", "merge_base", "head", "tools", "findings", "fixed", "changes", "notes",
               "unbaselined", "unchecked", "policy")


# --- encoding ------------------------------------------------------------------------------

def json_text(value: Any, **options: Any) -> str:
    """`value` as JSON text that encodes as UTF-8: non-ASCII letters as they are, unless a file
    name that is not UTF-8 (read with os.fsdecode: lone surrogates) is in it; then every
    non-ASCII character is written as a \\u escape, which a JSON reader turns back into it."""
    text = json.dumps(value, ensure_ascii=False, **options)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, ensure_ascii=True, **options)
    return text


def encode_span(span: Span) -> dict[str, int]:
    return {"line": span.line, "column": span.column, "end_line": span.end_line,
            "end_column": span.end_column}


def encode_edit(edit: Edit) -> JsonObject:
    return {"path": edit.path, **encode_span(edit.span), "new_text": edit.new_text}


def encode_fix(fix: Fix) -> JsonObject:
    return {"description": fix.description, "edits": [encode_edit(e) for e in fix.edits],
            "applicability": fix.applicability}


def encode_finding(finding: Finding) -> JsonObject:
    return {"tool": finding.tool, "rule": finding.rule, "severity": finding.severity.label,
            "message": finding.message, "path": finding.path, **encode_span(finding.span),
            "url": finding.url, "fix": encode_fix(finding.fix) if finding.fix else None,
            "file_level": finding.file_level}


def encode_findings(findings: Sequence[Finding]) -> list[JsonObject]:
    return [encode_finding(f) for f in findings]


def encode_verdict(verdict: Verdict) -> JsonObject:
    return {**encode_finding(verdict.finding), "scope": verdict.scope,
            "fingerprint": verdict.fingerprint, "where": verdict.where, "touched": verdict.touched,
            "base": encode_finding(verdict.base) if verdict.base is not None else None,
            "reasons": list(verdict.reasons), "matched_by": verdict.matched_by}


def encode_tool_run(run: ToolRun) -> JsonObject:
    return {"name": run.name, "version": run.version, "status": run.status,
            "message": run.message, "failed_at": list(run.failed_at), "seconds": run.seconds}


def encode_change(change: FileChange) -> JsonObject:
    return {"path": change.path, "old_path": change.old_path, "status": change.status,
            "changed_lines": sorted(change.changed_lines), "hunk_lines": sorted(change.hunk_lines),
            "binary": change.binary, "similarity": change.similarity,
            "base_lines": [[head, base] for head, base in sorted(change.base_lines.items())]}


def encode_policy(policy: GatePolicy) -> JsonObject:
    return {"fail_level": policy.fail_level, "tool_errors": policy.tool_errors}


def encode_result(result: ReviewResult) -> JsonObject:
    return {
        "base_ref": result.base_ref, "merge_base": result.merge_base, "head": result.head,
        "tools": [encode_tool_run(t) for t in result.tools],
        "findings": [encode_verdict(v) for v in result.findings],
        "fixed": [encode_verdict(v) for v in result.fixed],
        "changes": [encode_change(c) for c in result.changes],
        "notes": list(result.notes), "unbaselined": sorted(result.unbaselined),
        "unchecked": list(result.unchecked), "policy": encode_policy(result.policy),
    }


# --- decoding ------------------------------------------------------------------------------

class Fields:
    """A JSON object with exactly `keys`, read field by field; errors name the field (public:
    `bot.run.artifact` reads its own envelope with it)."""

    def __init__(self, raw: object, path: str, keys: Sequence[str], optional: Sequence[str] = ()) -> None:
        if not isinstance(raw, dict):
            raise CodecError(path, f"expected an object, not {_kind(raw)}")
        for key in keys:
            if key not in raw:
                raise CodecError(_join(path, key), "missing")
        extra = sorted(str(k) for k in raw if k not in keys and k not in optional)
        if extra:
            raise CodecError(_join(path, extra[0]), "unexpected key")
        self.raw: Mapping[str, object] = raw
        self.path = path

    def at(self, key: str) -> str:
        return _join(self.path, key)

    def text(self, key: str) -> str:
        return _text(self.raw[key], self.at(key))

    def optional_text(self, key: str) -> str | None:
        value = self.raw[key]
        return None if value is None else _text(value, self.at(key))

    def flag(self, key: str) -> bool:
        value = self.raw[key]
        if not isinstance(value, bool):
            raise CodecError(self.at(key), f"expected true or false, not {_kind(value)}")
        return value

    def positive(self, key: str) -> int:
        return _positive(self.raw[key], self.at(key))

    def choice(self, key: str, choices: Sequence[str]) -> Any:
        return _choice(self.raw[key], self.at(key), choices)

    def member(self, key: str, kind: type[E]) -> E:
        """The member of the string enum `kind` whose value the field holds."""
        return kind(_choice(self.raw[key], self.at(key), [m.value for m in kind]))

    def items(self, key: str) -> Iterator[tuple[object, str]]:
        value = self.raw[key]
        if not isinstance(value, list):
            raise CodecError(self.at(key), f"expected a list, not {_kind(value)}")
        return ((item, f"{self.at(key)}[{index}]") for index, item in enumerate(value))

    def many(self, key: str, decode: Callable[[object, str], T]) -> tuple[T, ...]:
        return tuple(decode(item, where) for item, where in self.items(key))


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _kind(value: object) -> str:
    if value is None:
        return "null"
    names = {bool: "a boolean", int: "a number", float: "a number", str: "a string",
             list: "a list", dict: "an object"}
    return names.get(type(value), type(value).__name__)


def _text(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise CodecError(path, f"expected a string, not {_kind(value)}")
    return value


def _positive(value: object, path: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise CodecError(path, "expected a positive integer")
    return value


def _choice(value: object, path: str, choices: Sequence[str]) -> Any:
    # Any: each caller's Literal type is exactly `choices`.
    if not isinstance(value, str) or value not in choices:
        raise CodecError(path, "expected one of " + ", ".join(choices))
    return value


def _span(obj: Fields) -> Span:
    return Span(obj.positive("line"), obj.positive("column"), obj.positive("end_line"),
                obj.positive("end_column"))


def decode_span(raw: object, path: str = "span") -> Span:
    return _span(Fields(raw, path, SPAN_KEYS))


def decode_edit(raw: object, path: str = "edit") -> Edit:
    obj = Fields(raw, path, EDIT_KEYS)
    return Edit(obj.text("path"), _span(obj), obj.text("new_text"))


def decode_fix(raw: object, path: str = "fix") -> Fix:
    obj = Fields(raw, path, FIX_KEYS)
    return Fix(obj.text("description"), obj.many("edits", decode_edit),
               obj.member("applicability", Applicability))


def _finding(obj: Fields) -> Finding:
    fix = obj.raw["fix"]
    return Finding(
        obj.text("tool"), obj.text("rule"), SEVERITIES[obj.choice("severity", tuple(SEVERITIES))],
        obj.text("message"), obj.text("path"), _span(obj), obj.optional_text("url"),
        None if fix is None else decode_fix(fix, obj.at("fix")), obj.flag("file_level"))


def decode_finding(raw: object, path: str = "finding") -> Finding:
    return _finding(Fields(raw, path, FINDING_KEYS))


def decode_findings(raw: object, path: str = "findings") -> tuple[Finding, ...]:
    if not isinstance(raw, list):
        raise CodecError(path, f"expected a list, not {_kind(raw)}")
    return tuple(decode_finding(item, f"{path}[{index}]") for index, item in enumerate(raw))


def decode_verdict(raw: object, path: str = "verdict") -> Verdict:
    obj = Fields(raw, path, VERDICT_KEYS)
    base = obj.raw["base"]
    where = obj.raw["where"]
    return Verdict(
        _finding(obj), obj.member("scope", Scope), obj.text("fingerprint"),
        None if where is None else _choice(where, obj.at("where"), WHERES),
        obj.flag("touched"), None if base is None else decode_finding(base, obj.at("base")),
        obj.many("reasons", _text), obj.optional_text("matched_by"))


def decode_tool_run(raw: object, path: str = "tool") -> ToolRun:
    obj = Fields(raw, path, TOOL_RUN_KEYS, TOOL_RUN_OPTIONAL)
    return ToolRun(obj.text("name"), obj.optional_text("version"), obj.choice("status", TOOL_STATUSES),
                   obj.text("message"),
                   obj.many("failed_at", lambda value, where: _choice(value, where, SIDES)),
                   _seconds(obj.raw.get("seconds"), obj.at("seconds")))


def _seconds(value: object, path: str) -> float | None:
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 <= value < float("inf"):
        said = repr(value) if isinstance(value, int | float) and not isinstance(value, bool) else _kind(value)
        raise CodecError(path, f"expected a number of seconds, not {said}")
    return float(value)


def decode_change(raw: object, path: str = "change") -> FileChange:
    obj = Fields(raw, path, CHANGE_KEYS)
    similarity = obj.raw["similarity"]
    if similarity is not None and (not isinstance(similarity, int) or isinstance(similarity, bool)
                                   or not 0 <= similarity <= 100):
        raise CodecError(obj.at("similarity"), "expected an integer from 0 to 100, or null")
    base_lines: dict[int, int] = {}
    for head, base in obj.many("base_lines", _line_pair):
        if head in base_lines:
            raise CodecError(obj.at("base_lines"), f"head line {head} is mapped twice")
        base_lines[head] = base
    return FileChange(obj.text("path"), obj.optional_text("old_path"),
                      obj.choice("status", FILE_STATUSES),
                      frozenset(obj.many("changed_lines", _positive)),
                      frozenset(obj.many("hunk_lines", _positive)), obj.flag("binary"), similarity,
                      base_lines)


def _line_pair(raw: object, path: str) -> tuple[int, int]:
    if not isinstance(raw, list) or len(raw) != 2:
        raise CodecError(path, "expected a [head line, base line] pair")
    return _positive(raw[0], f"{path}[0]"), _positive(raw[1], f"{path}[1]")


def decode_policy(raw: object, path: str = "policy") -> GatePolicy:
    obj = Fields(raw, path, POLICY_KEYS)
    return GatePolicy(obj.member("fail_level", FailLevel), obj.choice("tool_errors", TOOL_ERRORS))


def decode_result(raw: object, path: str = "") -> ReviewResult:
    obj = Fields(raw, path, RESULT_KEYS)
    return ReviewResult(
        base_ref=obj.text("base_ref"), merge_base=obj.text("merge_base"), head=obj.text("head"),
        tools=obj.many("tools", decode_tool_run), findings=obj.many("findings", decode_verdict),
        fixed=obj.many("fixed", decode_verdict), changes=obj.many("changes", decode_change),
        notes=obj.many("notes", _text), unbaselined=frozenset(obj.many("unbaselined", _text)),
        unchecked=obj.many("unchecked", _text), policy=decode_policy(obj.raw["policy"], obj.at("policy")))
