"""`reviewbot review` fails closed: a tool that could not check the change fails the gate with
exit 4, the gate's policy comes from the merge base, and bad input is a one-line exit 2."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

from bot.cli import main
from tests.conftest import GitRepo, require_tool

RUFF = '[lint]\nselect = ["F"]\n'


@pytest.fixture
def py_repo(repo: GitRepo) -> GitRepo:
    require_tool("ruff")
    repo.commit({"ruff.toml": RUFF, "a.py": "import os\n"}, "base")
    repo.branch("feature")
    return repo


def review(repo: GitRepo, *extra: str) -> int:
    return main(["review", "--repo", str(repo.path), "--base", "main", "--no-cache", *extra])


def test_a_change_that_breaks_the_linter_config_fails_the_gate(
        py_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    py_repo.commit({"ruff.toml": RUFF + "no-such-key = 1\n", "a.py": "import os\nx = 1\n"})
    assert review(py_repo, "--format", "json") == 4
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    ruff = next(t for t in doc["tools"] if t["name"] == "ruff")
    assert ruff["status"] == "failed" and "head" in ruff["failed_at"]
    assert doc["gate"]["status"] == 4 and "ruff failed at the head" in doc["gate"]["unchecked"]
    assert "the gate fails: the change could not be fully checked" in captured.err
    assert review(py_repo, "--tool-errors", "warn") == 0
    assert "tool-errors: warn" in capsys.readouterr().err


def test_tool_errors_warn_comes_from_the_merge_base(repo: GitRepo) -> None:
    require_tool("ruff")
    repo.commit({"ruff.toml": RUFF, ".reviewbot.yml": "tool-errors: warn\n", "a.py": "x = 1\n"})
    repo.branch("feature")
    repo.commit({"ruff.toml": RUFF + "no-such-key = 1\n", "a.py": "x = 2\n"})
    assert review(repo) == 0


def test_a_change_cannot_relax_its_own_gate(py_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    py_repo.commit({".reviewbot.yml": "fail-level: none\ntools: {ruff: {enabled: false}}\n",
                    "a.py": "import os\nimport sys\n"})
    assert review(py_repo) == 1
    out = capsys.readouterr().out
    assert "F401" in out and "takes effect once merged" in out


def test_the_working_tree_config_never_counts(py_repo: GitRepo) -> None:
    py_repo.commit({"a.py": "import os\nimport sys\n"})
    (py_repo.path / ".reviewbot.yml").write_text("fail-level: none\n")
    assert review(py_repo) == 1


def go_change_without_go_tools(repo: GitRepo, tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    """A change to a repository that configures golangci-lint, reviewed where neither
    golangci-lint nor gopls can be found (no bundled tools, PATH without them)."""
    repo.commit({".golangci.yml": "version: \"2\"\n", "go.mod": "module example.com/m\n\ngo 1.22\n",
                 "main.go": "package main\n\nfunc main() {}\n"}, "base")
    repo.branch("feature")
    repo.commit({"main.go": "package main\n\nfunc main() { _ = 1 }\n"})
    empty = tmp_path / "no-tools"
    empty.mkdir()
    monkeypatch.setenv("REVIEWBOT_TOOLS", str(empty))
    monkeypatch.setenv("PATH", os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                                               if not (Path(p) / "golangci-lint").exists()
                                               and not (Path(p) / "gopls").exists()))


def test_a_configured_linter_that_is_not_installed_fails_closed(
        repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    go_change_without_go_tools(repo, tmp_path, monkeypatch)
    assert review(repo, "--only", "golangci-lint") == 4
    err = capsys.readouterr().err
    assert "golangci-lint is configured but not installed" in err


@pytest.mark.parametrize(("args", "says"), [
    (("--only", "rufff"), "--only rufff: no such tool (did you mean 'ruff'?)"),
    (("--timeout", "0"), "--timeout: must be a positive number of seconds"),
    (("--timeout", "-1"), "--timeout: must be a positive number of seconds"),
    (("--timeout", "soon"), "--timeout: expected a number of seconds"),
    (("--working-tree", "--head", "HEAD~1"),
     "--working-tree reviews the files on disk: it cannot be given with --head"),
    (("--sarif", "/missing/dir/x.sarif"),
     "--sarif /missing/dir/x.sarif: the folder /missing/dir does not exist"),
])
def test_bad_arguments_are_one_line_exit_2(py_repo: GitRepo, args: tuple[str, ...], says: str,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    py_repo.commit({"a.py": "import os\nimport sys\n"})
    try:
        status = review(py_repo, *args)
    except SystemExit as exc:  # argparse's own errors
        status = int(exc.code or 0)
    assert status == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


@pytest.mark.parametrize(("settings", "says"), [
    ("tools: {rufff: {enabled: false}}\n", "did you mean 'ruff'?"),
    ("tools: {ruff: {enabled: \"no\"}}\n", "tools.ruff.enabled must be true or false"),
    ("rules:\n  - {language: python, rule: {pattern: print($A)}}\n", "has no `id`"),
])
def test_config_typos_exit_2(py_repo: GitRepo, settings: str, says: str,
                             capsys: pytest.CaptureFixture[str]) -> None:
    py_repo.commit({".reviewbot.yml": settings, "a.py": "import os\nimport sys\n"})
    assert review(py_repo) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1


def test_each_tool_carries_its_seconds_in_the_json(py_repo: GitRepo,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    py_repo.commit({"a.py": "import os\nimport sys\n"})
    assert review(py_repo, "--format", "json") == 1
    ruff = next(t for t in json.loads(capsys.readouterr().out)["tools"] if t["name"] == "ruff")
    assert ruff["status"] == "ok" and isinstance(ruff["seconds"], float) and 0 < ruff["seconds"] < 60


def test_progress_lines_at_a_terminal_only_and_not_with_quiet(
        py_repo: GitRepo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    py_repo.commit({"a.py": "import os\nx = 1\n"})
    assert review(py_repo) == 0
    assert "ruff: running" not in capsys.readouterr().err  # a log, not a person
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert review(py_repo) == 0
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "reviewbot: ruff: running"
    assert re.fullmatch(r"reviewbot: ruff: done in \d+\.\ds", lines[1]), lines
    assert review(py_repo, "--quiet") == 0
    assert "ruff" not in capsys.readouterr().err


def test_progress_says_a_tool_is_not_installed(
        repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    go_change_without_go_tools(repo, tmp_path, monkeypatch)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert review(repo, "--only", "golangci-lint") == 4
    assert re.search(r"^reviewbot: golangci-lint: not installed in \d+\.\ds$", capsys.readouterr().err, re.M)


def test_a_repository_without_commits_says_so(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", "--repo", str(repo.path)]) == 2
    err = capsys.readouterr().err
    assert err == f"reviewbot: {repo.path} has no commits yet: commit the change to review first\n"


def test_a_config_file_that_does_not_exist_says_so(py_repo: GitRepo,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    missing = py_repo.path / "nope.yml"
    assert review(py_repo, "--config", str(missing)) == 2
    assert capsys.readouterr().err == f"reviewbot: --config {missing}: no such file\n"


def test_working_tree_refuses_an_invalid_uncommitted_config_with_its_line(
        py_repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    py_repo.write({".reviewbot.yml": "timeout: 30\nfail-level: warnign\n"})  # not even tracked
    assert review(py_repo, "--working-tree") == 2
    err = capsys.readouterr().err
    assert err.startswith("reviewbot: .reviewbot.yml:2:13") and "did you mean 'warning'" in err, err
    assert err.count("\n") == 1

