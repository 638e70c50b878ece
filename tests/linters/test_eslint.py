"""ESLint's adapter on real ESLint output (flat config, no plugins)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from bot import fixes
from bot.linters import eslint
from bot.linters.base import LinterSpec
from bot.linters.runner import LinterAnalyzer
from bot.model import Severity, Span
from bot.run.pipeline import ReviewOptions, run_review
from tests.conftest import GitRepo
from tests.linters.conftest import calls, counting_spec, lint, write

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


def test_a_fix_that_reaches_the_end_of_the_file_applies_whole(tmp_path: Path) -> None:
    # The fix removes the blank lines at the end: its range ends at the end of a text that
    # ends with a line break, which is the start of the line after the last one.
    text = "export const a = 1;\n\n\n"
    write(tmp_path, {"eslint.config.mjs": 'export default [{ rules: { "no-multiple-empty-lines": '
                                          '["error", { max: 1, maxEOF: 0 }] } }];\n',
                     "a.js": text})
    outcome = lint(eslint.SPEC, tmp_path, ["a.js"])
    assert outcome.status == "ok", outcome.message
    [finding] = outcome.findings
    assert finding.fix is not None
    assert fixes.apply_fixes(text, [finding.fix])[0] == "export const a = 1;\n"


def test_config_error_is_a_failure(tmp_path: Path) -> None:
    write(tmp_path, {"eslint.config.mjs": 'import x from "not-installed";\nexport default [x];\n',
                     "a.js": "let a = 1;\n"})
    outcome = lint(eslint.SPEC, tmp_path, ["a.js"])
    assert outcome.status == "failed" and "a.js" in outcome.failed_paths


# --- both revisions through one ESLint run -----------------------------------------------------

def _review(repo: GitRepo, spec: LinterSpec, cache: Path | None) -> list[tuple[str, str, int, str]]:
    result = run_review(ReviewOptions(repo=repo.path, base="main", cache_dir=cache,
                                      analyzers={"eslint": LinterAnalyzer(spec)}))
    assert [t.status for t in result.tools] == ["ok"], result.tools
    rows = [(v.finding.path, v.finding.rule, v.finding.line, v.scope) for v in result.findings]
    rows += [(v.finding.path, v.finding.rule, v.finding.line, "fixed") for v in result.fixed]
    return sorted(rows)


def test_one_run_lints_both_revisions_with_each_ones_config(repo: GitRepo, tmp_path: Path) -> None:
    """ESLint 10 finds each file's config from the file: the base files, named by absolute
    path from the head's folder, are linted with the (borrowed) config in the base checkout,
    and the verdicts equal those of two separate runs."""
    repo.commit({"eslint.config.mjs": 'export default [{ rules: { "prefer-const": "error", '
                                      '"no-unused-vars": "error" } }];\n',
                 "src/a.js": "let a = 1;\nexport { a };\nconst gone = 2;\n",
                 "src/b.js": "export const b = 1;\n", "sub/eslint.config.mjs": "export default [];\n",
                 "sub/c.js": "let c = 1;\n"})
    repo.branch("feat")
    repo.commit({"src/a.js": "let a = 1;\nexport { a };\nlet fresh = 3;\nexport { fresh };\n",
                 "src/b.js": "export const b = 1;\nconst unused = 2;\n", "sub/c.js": "let c = 2;\n"})
    spec, log = counting_spec(tmp_path, eslint.SPEC)
    paired = _review(repo, spec, tmp_path / "c1")
    assert len(calls(log)) == 1, "one ESLint process for both revisions"
    separate = _review(repo, replace(spec, for_version=None), tmp_path / "c2")
    assert len(calls(log)) == 3
    assert paired == separate
    assert ("src/a.js", "prefer-const", 3, "introduced") in paired
    assert ("src/a.js", "no-unused-vars", 3, "fixed") in paired
    assert not [r for r in paired if r[0] == "sub/c.js"]  # its own folder's config: no rules
    # A re-run is served from the cache, through the paired path too.
    assert _review(repo, spec, tmp_path / "c1") == paired and len(calls(log)) == 3
    assert _review(repo, spec, None) == paired and len(calls(log)) == 4


# A parser that keeps state per process, as typescript-eslint 8 does: each config that loads
# it adds its folder as a candidate root, and with two candidates every file fails to parse.
STATEFUL = """import { createRequire } from "node:module";
const espree = createRequire(import.meta.url)(%r);
const roots = new Set();
export function configFor(root) {
  roots.add(root);
  return { languageOptions: { parser: { meta: { name: "stateful" }, parse(text, options) {
    if (roots.size > 1) throw new Error(`multiple candidate roots: ${[...roots].join(", ")}`);
    return espree.parse(text, { ...options, ecmaVersion: "latest", range: true, loc: true,
                               tokens: true, comment: true });
  } } }, rules: { "prefer-const": "error" } };
}
"""


def _stateful_change(repo: GitRepo, module: Path) -> None:
    """A config loading the stateful parser from `module` (outside the repository, as an
    installed package is), and a change that adds a `prefer-const` finding."""
    espree = Path(__file__).resolve().parents[2] / "tools/node_modules/espree/dist/espree.cjs"
    write(module.parent, {module.name: STATEFUL % str(espree)})
    config = (f'import {{ configFor }} from "{module}";\n'
              "export default [configFor(import.meta.dirname)];\n")
    repo.commit({"eslint.config.mjs": config, "src/a.js": "let a = 1;\nexport { a };\n"})
    repo.branch("feat")
    repo.commit({"src/a.js": "let a = 1;\nexport { a };\nlet b = 2;\nexport { b };\n"})


def test_a_tool_that_mixes_the_revisions_in_one_run_runs_each_alone(repo: GitRepo,
                                                                     tmp_path: Path) -> None:
    """A shared run whose output names the other revision's checkout was misled by it (the
    configs of both revisions loaded in one process): each revision is linted alone, and
    nothing of the mixed run is reported or cached."""
    _stateful_change(repo, tmp_path / "installed" / "stateful.mjs")
    spec, log = counting_spec(tmp_path, eslint.SPEC)
    rows = _review(repo, spec, tmp_path / "cache")
    assert rows == [("src/a.js", "prefer-const", 1, "preexisting"),
                    ("src/a.js", "prefer-const", 3, "introduced")]
    assert len(calls(log)) == 3, "the mixed run, then one per revision"
    assert _review(repo, spec, tmp_path / "cache") == rows and len(calls(log)) == 3


def test_a_typescript_eslint_config_without_its_root_is_not_paired(repo: GitRepo,
                                                                   tmp_path: Path) -> None:
    """A config that loads typescript-eslint and names no tsconfigRootDir would mix the
    revisions in one run: each revision is linted alone from the start (no wasted run)."""
    _stateful_change(repo, tmp_path / "node_modules/typescript-eslint/index.mjs")
    spec, log = counting_spec(tmp_path, eslint.SPEC)
    assert _review(repo, spec, None) == [("src/a.js", "prefer-const", 1, "preexisting"),
                                         ("src/a.js", "prefer-const", 3, "introduced")]
    assert len(calls(log)) == 2, "one run per revision"


# --- tool errors as a reviewer needs them ------------------------------------------------------

def test_missing_plugin_message_is_short_relative_and_says_how_to_install(repo: GitRepo) -> None:
    config = ('import plugin from "eslint-plugin-not-installed";\n'
              'export default [{ plugins: { x: plugin }, rules: { eqeqeq: "error" } }];\n')
    repo.commit({"eslint.config.mjs": config, "package-lock.json": "{}\n", "a.js": "let a = 1;\n"},
                "base")
    repo.branch("feature")
    repo.commit({"a.js": "let a = 2;\n"})
    result = run_review(ReviewOptions(repo=repo.path, base="main",
                                      analyzers={"eslint": LinterAnalyzer(eslint.SPEC)}))
    [tool] = result.tools
    assert tool.status == "failed"
    message = tool.message
    assert "Cannot find package 'eslint-plugin-not-installed' imported from eslint.config.mjs" in message
    assert "run `npm ci` before the review" in message
    assert "node:internal" not in message and "    at " not in message
    assert str(repo.path) not in message and "/tmp/" not in message, message
    assert "a.js" in result.unbaselined


def test_install_command_follows_the_lock_file(tmp_path: Path) -> None:
    from bot.linters.messages import install_command

    cases = {("package-lock.json",): "npm ci", ("pnpm-lock.yaml",): "pnpm install --frozen-lockfile",
             ("yarn.lock",): "yarn install --frozen-lockfile",
             ("yarn.lock", ".yarnrc.yml"): "yarn install --immutable",
             ("bun.lockb",): "bun install", ("bun.lock",): "bun install", (): "npm install"}
    for i, (files, expected) in enumerate(cases.items()):
        root = write(tmp_path / str(i), {name: "" for name in files})
        root.mkdir(exist_ok=True)
        assert install_command(root) == expected, files


def test_a_file_past_the_per_file_cap_fails_closed(tmp_path: Path) -> None:
    """ESLint's JSON is one document: read as it streams, and a file with more findings than
    the bot reads is failed, not reported as cut short."""
    write(tmp_path, {"eslint.config.mjs": CONFIG, "ok.js": "export const y = 1;\nif (y == 2) {}\n",
                     "big.js": "export let x = 1;\n" + "if (x == 1) {}\n" * 10_050})
    outcome = lint(eslint.SPEC, tmp_path, ["ok.js", "big.js"])
    assert outcome.status == "failed"
    assert outcome.failed_paths == {"big.js"}
    assert "big.js: 10051 findings, more than the 10000 per file" in outcome.message
    assert [(f.path, f.rule) for f in outcome.findings] == [("ok.js", "eqeqeq")]
