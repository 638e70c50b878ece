"""ESLint's adapter on real ESLint output (flat config, no plugins)."""

from __future__ import annotations

from pathlib import Path

from bot.linters import eslint
from bot.model import Severity, Span
from tests.linters.conftest import lint, write

CONFIG = ('export default [{ rules: { "prefer-const": "error", "no-unused-vars": "warn",'
          ' eqeqeq: "error" } }];\n')


def test_positions_fix_and_suggestions(tmp_path: Path) -> None:
    # The emoji is two UTF-16 units: ESLint's columns and fix ranges must be converted.
    write(tmp_path, {"eslint.config.mjs": CONFIG,
                     "src/a.js": 'const s = "😀"; let k = 1;\nexport { s, k };\nif (s == "x") {}\n'})
    outcome = lint(eslint.SPEC, tmp_path, ["src/a.js"])
    assert outcome.status == "ok", outcome.message
    rules = {f.rule: f for f in outcome.findings}
    prefer = rules["prefer-const"]
    assert (prefer.path, prefer.span, prefer.severity) == ("src/a.js", Span(1, 20, 1, 21), Severity.ERROR)
    assert prefer.fix is not None and prefer.fix.applicability == "safe"
    assert [(e.span, e.new_text) for e in prefer.fix.edits] == [(Span(1, 16, 1, 26), "const k = 1;")]
    eq = rules["eqeqeq"]
    assert eq.span == Span(3, 7, 3, 9)
    assert eq.url and "eqeqeq" in eq.url


def test_config_error_is_a_failure(tmp_path: Path) -> None:
    write(tmp_path, {"eslint.config.mjs": 'import x from "not-installed";\nexport default [x];\n',
                     "a.js": "let a = 1;\n"})
    outcome = lint(eslint.SPEC, tmp_path, ["a.js"])
    assert outcome.status == "failed" and "a.js" in outcome.failed_paths
