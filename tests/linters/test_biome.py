"""Biome's adapter on real Biome output (rdjson reporter)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from bot.analyzer import Target
from bot.linters import biome
from bot.linters.base import Unit
from bot.model import Span
from tests.linters.conftest import lint, write


def test_rules_positions_and_fix_applicability(tmp_path: Path) -> None:
    write(tmp_path, {"biome.json": "{}\n",
                     "a.js": "export function f(x) {\n  const unused = 1;\n  if (x == 1) { return 2; }\n"
                             "  let y = x;\n  return y;\n}\n"})
    outcome = lint(biome.SPEC, tmp_path, ["a.js"])
    assert outcome.status == "ok", outcome.message
    rules = {f.rule: f for f in outcome.findings}
    unused = rules["correctness/noUnusedVariables"]
    assert (unused.path, unused.span) == ("a.js", Span(2, 9, 2, 15))
    assert unused.fix is not None and unused.fix.applicability == "unsafe"  # renames: unsafe
    const = rules["style/useConst"]  # Biome's safe fixer applies it
    assert const.fix is not None and const.fix.applicability == "safe"
    assert [e.new_text for e in const.fix.edits] == ["const"]
    assert "suspicious/noDoubleEquals" in rules
    assert "format" not in rules


def test_eslint_config_wins(tmp_path: Path) -> None:
    write(tmp_path, {"biome.json": "{}\n", "eslint.config.js": "export default [];\n"})
    assert not biome.detect(tmp_path)


def test_a_fixer_that_fails_leaves_suggestions_unsafe(tmp_path: Path) -> None:
    write(tmp_path, {"biome.json": "{}\n", "a.js": "let y = 1;\nexport { y };\n"})
    found = [dataclasses.replace(f, fix=dataclasses.replace(f.fix, applicability="unsafe"))
             for f in lint(biome.SPEC, tmp_path, ["a.js"]).findings if f.fix]
    assert found  # useConst
    target = Target(tmp_path, "HEAD", ("a.js",), "head")
    for broken in ("false", str(tmp_path / "missing-biome")):
        refined = biome.refine(broken, found, Unit(".", ("a.js",)), target)
        assert {f.fix.applicability for f in refined if f.fix} == {"unsafe"}
