"""`.reviewbot.yml` rules as a review tool: verdicts against the merge base, fixes, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli import main
from bot.run.pipeline import ReviewOptions, run_review
from tests.conftest import GitRepo

SETTINGS = """\
rules:
  - id: no-print
    language: python
    severity: error
    message: "print($A) in library code: use the logger"
    rule:
      pattern: print($A)
      inside: {kind: function_definition, stopBy: end}
    fix: log.info($A)
  - rules/no-eval.yml
"""
NO_EVAL = "id: no-eval\nlanguage: javascript\nrule: {pattern: eval($X)}\nmessage: eval of $X\n"
BASE = 'import logging\nlog = logging.getLogger()\n\n\ndef old():\n    print("kept")\n'


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    """A git repository (this package's `repo` fixture is a plain folder)."""
    return GitRepo(tmp_path / "repo")


def table(repo: GitRepo) -> list[tuple[str, str, int, str, str | None]]:
    result = run_review(ReviewOptions(repo=repo.path, base="main", only=("ast-grep",)))
    assert [(t.name, t.status) for t in result.tools] == [("ast-grep", "ok")]
    return sorted((v.finding.rule, v.finding.path, v.finding.line, v.scope, v.finding.message)
                  for v in result.findings)


def test_rules_get_verdicts_like_any_linter(repo: GitRepo) -> None:
    repo.commit({".reviewbot.yml": SETTINGS, "rules/no-eval.yml": NO_EVAL, "a.py": BASE,
                 "b.js": "eval(code);\n"})
    repo.branch("feat")
    repo.commit({"a.py": '"""docs"""\n' + BASE + '\n\ndef new(x):\n    print(x)\n\nprint("top")\n',
                 "b.js": "// moved\neval(code);\neval(other);\n"})
    assert table(repo) == [
        ("no-eval", "b.js", 2, "preexisting", "eval of code"),
        ("no-eval", "b.js", 3, "introduced", "eval of other"),
        ("no-print", "a.py", 7, "preexisting", 'print("kept") in library code: use the logger'),
        ("no-print", "a.py", 11, "introduced", "print(x) in library code: use the logger"),
    ]
    code = main(["review", "--repo", str(repo.path), "--base", "main", "--only", "ast-grep", "--fix"])
    text = (repo.path / "a.py").read_text()
    assert "    log.info(x)\n" in text and 'print("kept")' in text and 'print("top")' in text
    assert code == 0  # what remains is the eval, a warning: below the default fail level


@pytest.mark.parametrize(("settings", "says"), [
    ("rules: {a: 1}\n", "rules must be a list"),
    ("rules:\n  - {id: r, language: python, rule: {patern: x}}\n",
     "rules[r]: rule: unknown key `patern`; did you mean `pattern`?"),
    ("rules:\n  - missing.yml\n", "cannot read rule file"),
])
def test_bad_rules_exit_2(repo: GitRepo, settings: str, says: str,
                          capsys: pytest.CaptureFixture[str]) -> None:
    repo.commit({".reviewbot.yml": settings, "a.py": "x = 1\n"})
    repo.branch("feat")
    repo.commit({"a.py": "x = 2\n"})
    assert main(["review", "--repo", str(repo.path), "--base", "main"]) == 2
    assert says in capsys.readouterr().err


def test_no_rules_no_tree_sitter(repo: GitRepo) -> None:
    """Without rules the review never loads the structural engine (start-up cost)."""
    import subprocess
    import sys
    repo.commit({"a.py": "x = 1\n"})
    repo.branch("feat")
    repo.commit({"a.py": "x = 2\n"})
    probe = ("import sys; from bot.cli import main; main(['review', '--repo', sys.argv[1], "
             "'--base', 'main', '--format', 'json']); "
             "print('tree_sitter' in sys.modules, file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", probe, str(repo.path)], capture_output=True, text=True)
    assert out.stderr.strip().endswith("False")


def test_the_rule_files_are_the_paths_the_entries_name_inside_the_repository() -> None:
    from bot.structural.analyzer import RulesAnalyzer

    entries = [{"id": "inline"}, "rules/a.yml", "./rules//b.yml", "../out.yml", "/abs.yml", "",
               "rules\\c.yml"]
    assert RulesAnalyzer.files(entries) == ["rules/a.yml", "rules/b.yml"]
