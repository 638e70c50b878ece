"""Linters a repository declares in `.reviewbot.yml`, one per input format, run for real
through `reviewbot review` on real repositories: verdicts against the merge base, fixes read
from the tools' output, and faults that fail closed like the built-in linters'."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.model import Span
from bot.render.suggestion import Suggestion, suggest
from bot.run.pipeline import ReviewOptions, run_review
from tests.conftest import GitRepo


def review(repo: GitRepo, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict[str, Any]]:
    code = main(["review", "--repo", str(repo.path), "--base", "main", "--format", "json", *extra])
    return code, json.loads(capsys.readouterr().out)


def scopes(doc: dict[str, Any]) -> list[tuple[str, int, str, str]]:
    return sorted((f["path"], f["line"], f["rule"], f["scope"]) for f in doc["findings"])


def declare(repo: GitRepo, config: str, base: dict[str, str], head: dict[str, str]) -> None:
    repo.commit({".reviewbot.yml": textwrap.dedent(config), **base})
    repo.branch("feat")
    repo.commit(head)


def test_regex_with_grep(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    declare(repo, r"""
        tools:
          todo:
            command: [grep, -nHE, "TODO|FIXME", "{files}"]
            files: ["*.txt"]
            format: regex
            pattern: '^(?P<file>[^:]+):(?P<line>\d+):(?P<message>.*)$'
        """, {"notes/a.txt": "one\nTODO old\n", "b.md": "TODO not mine\n", "-n.txt": "x\n"},
        {"notes/a.txt": "zero\none\nTODO old\nFIXME new\n", "b.md": "TODO not mine\nTODO\n",
         "-n.txt": "TODO\n"})
    code, doc = review(repo, capsys, "--show-preexisting")
    assert code == 0, doc  # grep's findings are warnings; the gate fails on errors
    # "-n.txt" reaches grep as a file ("./-n.txt"), not as an option.
    assert scopes(doc) == [("-n.txt", 1, "todo", "introduced"),
                           ("notes/a.txt", 3, "todo", "preexisting"),
                           ("notes/a.txt", 4, "todo", "introduced")]
    assert [t["name"] for t in doc["tools"]] == ["todo"] and doc["tools"][0]["status"] == "ok"


def test_checkstyle_with_shellcheck(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    declare(repo, """
        tools:
          sh:
            command: [shellcheck, -f, checkstyle, "{files}"]
            files: ["*.sh"]
            format: checkstyle
        """, {"run.sh": "#!/bin/sh\necho $1\n"}, {"run.sh": "#!/bin/sh\necho $1\ncd $2\n"})
    code, doc = review(repo, capsys)
    found = {(f["line"], f["rule"], f["scope"], f["severity"]) for f in doc["findings"]}
    assert (2, "ShellCheck.SC2086", "preexisting", "info") in found
    assert (3, "ShellCheck.SC2086", "introduced", "info") in found
    assert (3, "ShellCheck.SC2164", "introduced", "warning") in found
    assert code == 0


RUFF = "[ruff, check, --no-cache, --select, F401, --exit-zero, --output-format, {fmt}, \"{{files}}\"]"


@pytest.mark.parametrize("fmt", ["sarif", "rdjson"])
def test_sarif_and_rdjson_with_ruff_and_their_fixes(repo: GitRepo, tmp_path: Path, fmt: str) -> None:
    declare(repo, f"""
        tools:
          imports:
            command: {RUFF.format(fmt=fmt)}
            files: ["*.py"]
            format: {fmt}
            fix: safe
        """, {"pkg/a.py": "import os\n"}, {"pkg/a.py": "import os\nimport sys\n"})
    result = run_review(ReviewOptions(repo=repo.path, base="main", cache_dir=tmp_path / "cache"))
    assert [(t.name, t.status) for t in result.tools] == [("imports", "ok")], result.tools
    got = sorted((v.finding.line, v.scope) for v in result.findings)
    assert got == [(1, "preexisting"), (2, "introduced")]
    new = next(v.finding for v in result.findings if v.scope == "introduced")
    assert (new.tool, new.rule, new.span) == ("imports", "F401", Span(2, 8, 2, 11))
    assert new.fix is not None and new.fix.applicability == "safe"
    assert [(e.path, e.span, e.new_text) for e in new.fix.edits] == [("pkg/a.py", Span(2, 1, 3, 1), "")]
    if fmt == "sarif":
        assert new.url == "https://docs.astral.sh/ruff/rules/unused-import"
    # A warm cache gives the same verdicts without running the tool again.
    again = run_review(ReviewOptions(repo=repo.path, base="main", cache_dir=tmp_path / "cache"))
    assert sorted((v.finding.line, v.scope) for v in again.findings) == got


def test_review_fix_applies_a_declared_safe_fix(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    declare(repo, f"""
        tools:
          imports:
            command: {RUFF.format(fmt="sarif")}
            files: ["*.py"]
            format: sarif
            fix: safe
        """, {"a.py": "x = 1\n"}, {"a.py": "import sys\nx = 1\n"})
    main(["review", "--repo", str(repo.path), "--base", "main", "--fix"])
    assert (repo.path / "a.py").read_text() == "x = 1\n"


LINT_SCRIPT = '''#!/usr/bin/env python3
"""Prints one rdjsonl Diagnostic per FIXME, suggesting DONE (columns in UTF-8 bytes)."""
import json, sys
for path in sys.argv[1:]:
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        at = line.find("FIXME")
        if at >= 0:
            col = len(line[:at].encode()) + 1
            rng = {"start": {"line": number, "column": col}, "end": {"line": number, "column": col + 5}}
            print(json.dumps({"message": "unfinished", "location": {"path": path, "range": rng},
                              "severity": "ERROR", "code": {"value": "fixme"},
                              "suggestions": [{"range": rng, "text": "DONE"}]}))
'''


def test_rdjsonl_from_a_repository_script(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    declare(repo, """
        tools:
          fixme:
            command: [scripts/lint, "{files}"]
            files: ["docs/**"]
            format: rdjsonl
        """, {"scripts/lint": LINT_SCRIPT, "docs/a.txt": "ok\n"},
        {"docs/a.txt": "ok\nhé FIXME\n"})
    (repo.path / "scripts" / "lint").chmod(0o755)
    repo.git("add", "--chmod=+x", "scripts/lint")
    repo.git("commit", "-q", "--amend", "--no-edit")
    code, doc = review(repo, capsys)
    assert code == 1, doc  # an introduced error
    [finding] = doc["findings"]
    assert (finding["path"], finding["line"], finding["column"], finding["end_column"],
            finding["scope"], finding["fix_applicability"]) == ("docs/a.txt", 2, 4, 9, "introduced",
                                                                "unsafe")
    assert doc["tools"][0]["version"].startswith("sha256:")
    # The suggestion a forge would offer, from the tool's `suggestions`.
    [verdict] = run_review(ReviewOptions(repo=repo.path, base="main")).findings
    assert verdict.finding.fix is not None
    offered = suggest(verdict.finding.fix, "docs/a.txt", ["ok\n", "hé FIXME\n"])
    assert isinstance(offered, Suggestion) and offered.lines == ("hé DONE",)
    assert (offered.start_line, offered.end_line) == (2, 2)
    # fix: none drops the tool's fixes.
    repo.commit({".reviewbot.yml": (repo.path / ".reviewbot.yml").read_text() + "    fix: none\n"})
    code, doc = review(repo, capsys)
    assert [f["fixable"] for f in doc["findings"]] == [False]


@pytest.mark.parametrize(("script", "status"), [
    ('echo "lint: cannot start" >&2; exit 3', "failed"),
    ("sleep 30", "timeout"),
    ("echo this is not SARIF", "failed"),
])
def test_faults_fail_closed(repo: GitRepo, capsys: pytest.CaptureFixture[str], script: str,
                            status: str) -> None:
    declare(repo, f"""
        tools:
          broken:
            command: [sh, -c, {json.dumps(script)}, sh, "{{files}}"]
            files: ["*.txt"]
            format: sarif
        """, {"a.txt": "a\n"}, {"a.txt": "b\n"})
    code, doc = review(repo, capsys, "--timeout", "2")
    assert code == 4, doc
    [tool] = doc["tools"]
    assert tool["status"] == status, tool


def test_a_missing_program_is_reported_with_its_hint(repo: GitRepo,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    declare(repo, """
        tools:
          gone:
            command: [no-such-linter-anywhere, "{files}"]
            files: ["*.txt"]
            format: rdjson
        """, {"a.txt": "a\n"}, {"a.txt": "b\n"})
    code, doc = review(repo, capsys)
    assert code == 4
    [tool] = doc["tools"]
    assert tool["status"] == "missing"
    assert "correct tools.gone.command in .reviewbot.yml" in tool["message"]


def test_repo_scope_runs_once_without_file_arguments(repo: GitRepo,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    declare(repo, r"""
        tools:
          whole:
            command: [grep, -rnH, --include=*.txt, TODO, .]
            files: ["*.txt"]
            format: regex
            scope: repo
            pattern: '^(?:\./)?(?P<file>[^:]+):(?P<line>\d+):(?P<message>.*)$'
        """, {"a.txt": "TODO\n", "b.txt": "TODO untouched\n"}, {"a.txt": "TODO\nTODO\n"})
    code, doc = review(repo, capsys, "--show-preexisting")
    assert code == 0
    # Only the changed file's findings count; b.txt's are outside the change.
    assert scopes(doc) == [("a.txt", 1, "whole", "preexisting"), ("a.txt", 2, "whole", "introduced")]


def test_only_and_disable_name_a_declared_linter(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    declare(repo, r"""
        tools:
          todo:
            command: [grep, -nH, TODO, "{files}"]
            files: ["*.txt"]
            format: regex
            pattern: '^(?P<file>[^:]+):(?P<line>\d+):(?P<message>.*)$'
        """, {"a.txt": "a\n"}, {"a.txt": "TODO\n"})
    code, doc = review(repo, capsys, "--only", "todo")
    assert code == 0
    assert [f["scope"] for f in doc["findings"]] == ["introduced"]
    assert main(["review", "--repo", str(repo.path), "--base", "main", "--only", "tod"]) == 2
    assert "did you mean 'todo'" in capsys.readouterr().err


def test_doctor_shows_a_declared_linter_and_why(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.commit({".reviewbot.yml": "tools:\n  todo:\n    command: [grep, -nH, TODO, '{files}']\n"
                                   "    files: ['*.txt']\n    format: regex\n    pattern: "
                                   "'(?P<file>[^:]+):(?P<line>\\d+):(?P<message>.*)'\n",
                 "a.txt": "x\n", "b.txt": "y\n", "Dockerfile": "FROM x\n", ".hadolint.yaml": "{}\n"})
    assert main(["doctor", "--repo", str(repo.path), "--format", "json"]) == 0
    tools = {t["name"]: t for t in json.loads(capsys.readouterr().out)["tools"]}
    assert tools["todo"]["state"] == "ready" and tools["todo"]["markers"] == [".reviewbot.yml"]
    assert tools["todo"]["why"] == ".reviewbot.yml; 2 *.txt files"
    assert tools["hadolint"]["state"] == "ready"
    assert tools["hadolint"]["why"].startswith(".hadolint.yaml; 1 ")


# A declared linter that logs each run to `{log}`: grep for `{word}`.
LOGGED_GREP = r"""
    tools:
      todo:
        command: [sh, -c, 'echo run >> {log}; exec grep -nH {word} "$@"', sh, "{{files}}"]
        files: ["*.txt"]
        format: regex
        pattern: '^(?P<file>[^:]+):(?P<line>\d+):(?P<message>.*)$'
    """


def test_the_cache_is_keyed_on_the_declaration(repo: GitRepo, tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    declare(repo, LOGGED_GREP.format(log=log, word="TODO"), {"a.txt": "TODO\n"}, {"a.txt": "TODO\nFIXME\n"})

    def run() -> list[tuple[int, str]]:
        result = run_review(ReviewOptions(repo=repo.path, base="main", cache_dir=tmp_path / "cache"))
        return sorted((v.finding.line, v.scope) for v in result.findings)

    assert run() == [(1, "preexisting")]
    assert len(log.read_text().splitlines()) == 2  # base and head
    assert run() == [(1, "preexisting")]
    assert len(log.read_text().splitlines()) == 2  # both from the cache
    repo.commit({".reviewbot.yml": textwrap.dedent(LOGGED_GREP.format(log=log, word="FIXME"))})
    assert run() == [(2, "introduced")]  # another command: not the old entries
    assert len(log.read_text().splitlines()) == 4


def test_exit_codes_say_what_means_it_ran(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    config = r"""
        tools:
          two:
            command: [sh, -c, 'grep -nH TODO "$@"; exit 2', sh, "{{files}}"]
            files: ["*.txt"]
            format: regex
            pattern: '^(?P<file>[^:]+):(?P<line>\d+):(?P<message>.*)$'
            {codes}
        """
    declare(repo, config.format(codes=""), {"a.txt": "a\n"}, {"a.txt": "TODO\n"})
    code, doc = review(repo, capsys)
    assert code == 4 and doc["tools"][0]["status"] == "failed"
    assert "exit 2" in doc["tools"][0]["message"]
    repo.commit({".reviewbot.yml": textwrap.dedent(config.format(codes="exit-codes: [0, 2]"))})
    code, doc = review(repo, capsys)
    assert code == 0 and doc["tools"][0]["status"] == "ok"
    assert [(f["line"], f["scope"]) for f in doc["findings"]] == [(1, "introduced")]


def test_the_cache_is_keyed_on_what_the_checkout_has_installed(repo: GitRepo, tmp_path: Path) -> None:
    """A linter loads the checkout's packages (plugins, stubs): an entry written before an
    upgrade must not answer after it."""
    log = tmp_path / "calls.log"
    declare(repo, LOGGED_GREP.format(log=log, word="TODO"), {".gitignore": ".venv/\n", "a.txt": "TODO\n"},
            {"a.txt": "TODO\nx\n"})
    site = repo.path / ".venv" / "lib" / "python3.11" / "site-packages"
    (site / "plugin-1.0.dist-info").mkdir(parents=True)
    (repo.path / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")

    def calls() -> int:
        run_review(ReviewOptions(repo=repo.path, base="main", cache_dir=tmp_path / "cache"))
        return len(log.read_text().splitlines())

    assert calls() == 2
    assert calls() == 2  # both revisions from the cache
    (site / "plugin-1.0.dist-info").rename(site / "plugin-2.0.dist-info")
    assert calls() == 4


def test_a_missing_program_is_not_given_a_made_up_install_command(
        repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    declare(repo, """
        tools:
          gone:
            command: [nosuchbinary, "{files}"]
            files: ["*.txt"]
            format: rdjson
        """, {"a.txt": "a\n"}, {"a.txt": "b\n"})
    code, doc = review(repo, capsys)
    assert code == 4
    [tool] = doc["tools"]
    assert "install it with" not in tool["message"], tool["message"]
    assert tool["message"] == ("nosuchbinary not found: install it, or correct "
                               "tools.gone.command in .reviewbot.yml")
