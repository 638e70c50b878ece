"""structural-rules.jsonl: cases that need more than a pattern (relational rules, constraints,
transforms, fix objects), all run through the rules engine."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from bot.structural.lang import get
from bot.structural.rulefix import rewrite_rule
from bot.structural.rulematch import search_rule
from bot.structural.rules import compile_config

from .conftest import load_cases

CASES = load_cases("structural-rules.jsonl")


def _document(case: dict[str, Any]) -> dict[str, Any]:
    if "rule_yaml" in case:
        doc: dict[str, Any] = yaml.safe_load(case["rule_yaml"])
        return doc
    return {"rule": case["rule"], **case.get("config", {})}


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in CASES])
def test_rules_case(case: dict[str, Any]) -> None:
    config = compile_config(_document(case), get(case["lang"]))
    source = case["source"].encode()
    if case["kind"] == "rewrite":
        out = rewrite_rule(config, source)
        assert out.error == ""
        assert out.new_source.decode() == case["expect_output"]
    else:
        found = [source[r.start:r.end].decode() for r in search_rule(config, source)]
        assert sorted(found) == sorted(case["expect_matches"])
