"""The codec: every value round-trips through JSON; malformed input is refused with the path
of the field; `review --format json` keeps its documented keys."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot import codec
from bot.model import (
    Edit,
    FileChange,
    Finding,
    Fix,
    ReviewResult,
    Severity,
    Span,
    ToolRun,
    Verdict,
)
from bot.publishing import report
from tests import strategies as s

ANY_PATH = st.text(max_size=10)  # the codec does not judge paths; the artifact does

CASES: list[tuple[st.SearchStrategy[Any], Callable[[Any], Any], Callable[[object], Any]]] = [
    (s.spans(), codec.encode_span, codec.decode_span),
    (st.builds(Edit, ANY_PATH, s.spans(), s.texts), codec.encode_edit, codec.decode_edit),
    (s.fixes(ANY_PATH), codec.encode_fix, codec.decode_fix),
    (s.findings(ANY_PATH), codec.encode_finding, codec.decode_finding),
    (s.verdicts(ANY_PATH), codec.encode_verdict, codec.decode_verdict),
    (s.tool_runs(), codec.encode_tool_run, codec.decode_tool_run),
    (s.changes(ANY_PATH), codec.encode_change, codec.decode_change),
    (s.policies(), codec.encode_policy, codec.decode_policy),
    (s.results(ANY_PATH), codec.encode_result, codec.decode_result),
]


@pytest.mark.parametrize("strategy,encode,decode", CASES,
                         ids=[c[1].__name__.removeprefix("encode_") for c in CASES])
def test_every_value_round_trips_through_json(strategy: st.SearchStrategy[Any],
                                              encode: Callable[[Any], Any],
                                              decode: Callable[[object], Any]) -> None:
    @settings(max_examples=60, deadline=None)
    @given(strategy)
    def check(value: Any) -> None:
        wire = json.loads(json.dumps(encode(value)))
        assert decode(wire) == value
        assert encode(decode(wire)) == wire  # one shape: encoding is canonical

    check()


@settings(max_examples=50, deadline=None)
@given(st.lists(s.findings(ANY_PATH), max_size=4).map(tuple))
def test_findings_lists_round_trip(findings: tuple[Finding, ...]) -> None:
    assert codec.decode_findings(json.loads(json.dumps(codec.encode_findings(findings)))) == findings


FINDING = Finding("ruff", "F401", Severity.ERROR, "`os` imported but unused", "a.py", Span(1, 8, 1, 10),
                  "https://docs.astral.sh/ruff/rules/unused-import",
                  Fix("Remove unused import", (Edit("a.py", Span(1, 1, 2, 1), ""),), "unsafe"))
BASE = Finding("ruff", "F401", Severity.WARNING, "`os` imported but unused", "old.py", Span(3, 8, 3, 10))
VERDICT = Verdict(FINDING, "changed", "0123456789abcdef0123", None, True, BASE, ("severity-up",), "P1")
RESULT = ReviewResult("main", "a" * 40, "b" * 40, (ToolRun("ruff", "0.17.6", "ok"),), (VERDICT,), (),
                      (FileChange("a.py", "old.py", "renamed", frozenset({1}), frozenset({1, 2}),
                                  similarity=90, base_lines={2: 1}),))


def _encoded() -> dict[str, Any]:
    return codec.encode_result(RESULT)


@pytest.mark.parametrize("mutate,path,why", [
    (lambda d: d["findings"][0].update(line=0), "findings[0].line", "expected a positive integer"),
    (lambda d: d["findings"][0].update(line=True), "findings[0].line", "expected a positive integer"),
    (lambda d: d["findings"][0].update(column=1.5), "findings[0].column", "expected a positive integer"),
    (lambda d: d["findings"][0]["fix"]["edits"][0].update(end_line=-1),
     "findings[0].fix.edits[0].end_line", "expected a positive integer"),
    (lambda d: d["findings"][0]["fix"].update(applicability="maybe"), "findings[0].fix.applicability",
     "expected one of safe, unsafe, display"),
    (lambda d: d["findings"][0].update(severity="fatal"), "findings[0].severity",
     "expected one of info, warning, error"),
    (lambda d: d["findings"][0].update(scope="new"), "findings[0].scope", "expected one of"),
    (lambda d: d["findings"][0].update(where="inside"), "findings[0].where", "expected one of diff"),
    (lambda d: d["findings"][0].update(touched="yes"), "findings[0].touched", "expected true or false"),
    (lambda d: d["findings"][0]["base"].pop("message"), "findings[0].base.message", "missing"),
    (lambda d: d["findings"][0].update(extra=1), "findings[0].extra", "unexpected key"),
    (lambda d: d["findings"][0].update(reasons="severity-up"), "findings[0].reasons", "expected a list"),
    (lambda d: d["findings"][0].update(reasons=[1]), "findings[0].reasons[0]", "expected a string"),
    (lambda d: d["findings"][0].update(url=7), "findings[0].url", "expected a string, not a number"),
    (lambda d: d["findings"].append([]), "findings[1]", "expected an object, not a list"),
    (lambda d: d["tools"][0].update(failed_at=["both"]), "tools[0].failed_at[0]", "expected one of"),
    (lambda d: d["tools"][0].update(seconds=-1), "tools[0].seconds", "expected a number of seconds, not -1"),
    (lambda d: d["tools"][0].update(seconds="1s"), "tools[0].seconds", "not a string"),
    (lambda d: d["tools"][0].update(version=None, status="done"), "tools[0].status", "expected one of"),
    (lambda d: d["changes"][0].update(similarity=101), "changes[0].similarity", "0 to 100"),
    (lambda d: d["changes"][0].update(hunk_lines=[1, 0]), "changes[0].hunk_lines[1]", "positive integer"),
    (lambda d: d["changes"][0].update(status="moved"), "changes[0].status", "expected one of"),
    (lambda d: d["changes"][0].update(base_lines=[[2]]), "changes[0].base_lines[0]", "[head line, base"),
    (lambda d: d["changes"][0].update(base_lines=[[2, 0]]), "changes[0].base_lines[0][1]", "positive"),
    (lambda d: d["changes"][0].update(base_lines=[[2, 1], [2, 3]]), "changes[0].base_lines",
     "head line 2 is mapped twice"),
    (lambda d: d["policy"].update(fail_level="fatal"), "policy.fail_level", "expected one of none"),
    (lambda d: d.pop("unbaselined"), "unbaselined", "missing"),
    (lambda d: d.update(merge_base=None), "merge_base", "expected a string, not null"),
])
def test_malformed_input_names_the_field(mutate: Callable[[dict[str, Any]], Any], path: str,
                                         why: str) -> None:
    data = copy.deepcopy(_encoded())
    mutate(data)
    with pytest.raises(codec.CodecError) as info:
        codec.decode_result(data)
    assert info.value.path == path
    assert why in info.value.why
    assert str(info.value).startswith(f"{path}: ")


def test_a_tool_run_without_timings_reads_as_unmeasured() -> None:
    # Artifacts written before tools carried their seconds still read.
    data = copy.deepcopy(_encoded())
    data["tools"][0].pop("seconds")
    assert codec.decode_result(data).tools[0].seconds is None
    data["tools"][0]["seconds"] = 2
    assert codec.decode_result(data).tools[0].seconds == 2.0


def test_a_nested_decode_is_named_from_its_root() -> None:
    with pytest.raises(codec.CodecError) as info:
        codec.decode_result(None, "result")
    assert str(info.value) == "result: expected an object, not null"
    with pytest.raises(codec.CodecError) as info:
        codec.decode_findings({"tool": "x"})
    assert info.value.path == "findings"


def test_the_encoded_shape_is_the_documented_one() -> None:
    verdict = _encoded()["findings"][0]
    assert verdict["line"] == 1 and verdict["end_column"] == 10 and "span" not in verdict
    assert verdict["fix"] == {"description": "Remove unused import", "applicability": "unsafe",
                              "edits": [{"path": "a.py", "line": 1, "column": 1, "end_line": 2,
                                         "end_column": 1, "new_text": ""}]}
    assert verdict["base"]["path"] == "old.py" and verdict["base"]["severity"] == "warning"
    change = _encoded()["changes"][0]
    assert change["hunk_lines"] == [1, 2] and change["old_path"] == "old.py"
    assert change["base_lines"] == [[2, 1]]


# The keys the README's "JSON output" section documents for each finding, with their meaning.
DOCUMENTED = {"tool", "rule", "severity", "message", "path", "line", "column", "end_line", "end_column",
              "scope", "where", "touched", "base", "fingerprint", "fixable", "fix_applicability", "url",
              "reasons", "matched_by"}


def test_review_json_keeps_every_documented_key_with_its_meaning() -> None:
    doc = report.to_dict(RESULT)
    assert doc["version"] == 1 and doc["base"] == "a" * 40 and doc["head"] == "b" * 40
    assert doc["target"] == "main"
    assert doc["tools"] == [{"name": "ruff", "version": "0.17.6", "status": "ok", "message": "",
                             "failed_at": [], "seconds": None}]
    item = doc["findings"][0]
    assert set(item) >= DOCUMENTED
    assert {k: item[k] for k in ("tool", "rule", "severity", "path", "line", "column", "end_line",
                                 "end_column", "scope", "where", "touched", "fingerprint", "fixable",
                                 "fix_applicability", "reasons", "matched_by")} == {
        "tool": "ruff", "rule": "F401", "severity": "error", "path": "a.py", "line": 1, "column": 8,
        "end_line": 1, "end_column": 10, "scope": "changed", "where": None, "touched": True,
        "fingerprint": "0123456789abcdef0123", "fixable": True, "fix_applicability": "unsafe",
        "reasons": ["severity-up"], "matched_by": "P1"}
    assert item["base"]["path"] == "old.py" and item["base"]["line"] == 3  # the documented pair
    assert item["fix"]["edits"][0]["end_line"] == 2  # new: the edits themselves
    no_fix = report.verdict_dict(Verdict(BASE, "fixed", "f" * 20))
    assert no_fix["fixable"] is False and no_fix["fix_applicability"] is None and no_fix["base"] is None
