"""structural-rules.jsonl: cases that need more than a pattern.

Our rule format is a pattern (with optional context/selector) and a rewrite. Cases inside it
run for real; relational rules, constraints and transforms are not in our format yet, and
their cases are listed as skipped with the reason, so adopting one turns its test on.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from bot.structural.lang import get
from bot.structural.pattern import compile_pattern
from bot.structural.rewrite import compile_template, rewrite_source
from bot.structural.search import search_source

from .conftest import load_cases

CASES = load_cases("structural-rules.jsonl")
PATTERN_KEYS = {"pattern"}


def _rule(case: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    if "rule_yaml" in case:
        doc = yaml.safe_load(case["rule_yaml"])
        return doc, doc.get("fix")
    return {"rule": case["rule"], **case.get("config", {})}, None


def _unsupported(doc: dict[str, Any], fix: Any) -> str:
    extra = set(doc["rule"]) - PATTERN_KEYS
    if extra:
        return f"rule keys {sorted(extra)} are not in our rule format"
    for key in ("constraints", "transform", "utils"):
        if key in doc:
            return f"{key} are not in our rule format"
    if fix is not None and not isinstance(fix, str):
        return "fix objects (expandEnd/expandStart) are not in our rule format"
    return ""


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in CASES])
def test_rules_case(case: dict[str, Any]) -> None:
    doc, fix = _rule(case)
    why = _unsupported(doc, fix)
    if why:
        pytest.skip(why)
    pat = doc["rule"]["pattern"]
    lang = get(case["lang"])
    if isinstance(pat, dict):
        pattern = compile_pattern(lang, "", context=pat["context"], selector=pat.get("selector"))
    else:
        pattern = compile_pattern(lang, pat)
    source = case["source"].encode()
    if case["kind"] == "rewrite":
        out = rewrite_source(pattern, compile_template(fix, pattern), source)
        assert out.new_source.decode() == case["expect_output"]
    else:
        assert sorted(m.text for m in search_source(pattern, source)) == sorted(
            case["expect_matches"])


def test_some_rules_case_runs() -> None:
    runnable = [c for c in CASES if not _unsupported(*_rule(c))]
    assert [c["id"] for c in runnable] == ["js-rw-delete-statement-leaves-blank-line"]
