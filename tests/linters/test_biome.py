"""Biome's adapter on real Biome output (rdjson reporter)."""

from __future__ import annotations

from pathlib import Path

from bot.linters import biome
from bot.model import Span
from tests.linters.conftest import lint, write


def test_rules_positions_and_unsafe_suggestions(tmp_path: Path) -> None:
    write(tmp_path, {"biome.json": "{}\n",
                     "a.js": "export function f(x) {\n  const unused = 1;\n  if (x == 1) { return 2; }\n"
                             "  return x;\n}\n"})
    outcome = lint(biome.SPEC, tmp_path, ["a.js"])
    assert outcome.status == "ok", outcome.message
    rules = {f.rule: f for f in outcome.findings}
    unused = rules["correctness/noUnusedVariables"]
    assert (unused.path, unused.span) == ("a.js", Span(2, 9, 2, 15))
    assert unused.fix is not None and unused.fix.applicability == "unsafe"
    assert "suspicious/noDoubleEquals" in rules
    assert "format" not in rules


def test_eslint_config_wins(tmp_path: Path) -> None:
    write(tmp_path, {"biome.json": "{}\n", "eslint.config.js": "export default [];\n"})
    assert not biome.detect(tmp_path)
