"""`reviewbot doctor` on real repositories with the real installed tools: why each tool
applies, the binary and where it came from, the install command when it cannot run, and
exit 1 exactly when a review there would not fully check a change."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.doctor import report
from tests.conftest import TOOLS_BIN, GitRepo, require_tool


def doctor(repo: GitRepo, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict[str, Any]]:
    status = main(["doctor", "--repo", str(repo.path), "--format", "json", *extra])
    return status, json.loads(capsys.readouterr().out)


def tool(doc: dict[str, Any], name: str) -> dict[str, Any]:
    return next(t for t in doc["tools"] if t["name"] == name)


@pytest.fixture
def no_go_tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither golangci-lint nor gopls anywhere the bot looks."""
    empty = tmp_path / "no-tools"
    empty.mkdir()
    monkeypatch.setenv("REVIEWBOT_TOOLS", str(empty))
    monkeypatch.setenv("PATH", os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep)
                                               if not (Path(p) / "golangci-lint").exists()
                                               and not (Path(p) / "gopls").exists()))


GO = {"go.mod": "module example.com/m\n\ngo 1.22\n", "main.go": "package main\n\nfunc main() {}\n"}


def test_a_configured_linter_applies_and_names_its_binary_and_version(
        repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    ruff = require_tool("ruff")
    repo.commit({"ruff.toml": "[lint]\nselect = ['F']\n", "a.py": "x = 1\n", "b.py": "y = 2\n"})
    status, doc = doctor(repo, capsys)
    assert status == 0 and doc["problems"] == [] and doc["exit"] == 0
    got = tool(doc, "ruff")
    assert got["state"] == "ready" and got["applies"] and got["markers"] == ["ruff.toml"]
    assert got["why"] == "ruff.toml; 2 .py/.pyi files"
    assert Path(got["executable"]).name == "ruff" and got["origin"] in ("PATH", "bundled")
    own = subprocess.run([got["executable"], "--version"], capture_output=True, text=True).stdout
    assert got["version"] and got["version"] in own
    assert Path(got["executable"]).resolve() == ruff.resolve() or got["origin"] == "PATH"
    eslint = tool(doc, "eslint")
    assert eslint["state"] == "unused" and not eslint["applies"]
    assert eslint["why"].startswith("none of eslint.config.js, ")
    assert doc["config"] == {"source": None, "valid": True, "error": None}


def test_a_configured_linter_that_is_not_installed_is_exit_1_with_the_install_command(
        repo: GitRepo, capsys: pytest.CaptureFixture[str], no_go_tools: None) -> None:
    repo.commit({".golangci.yml": "version: \"2\"\n", **GO})
    status, doc = doctor(repo, capsys)
    assert status == 1
    got = tool(doc, "golangci-lint")
    assert got["state"] == "missing" and got["executable"] is None
    assert got["message"] == "golangci-lint not found"
    assert got["install"].startswith("go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@")
    assert doc["problems"] == ["golangci-lint applies but cannot run: golangci-lint not found"]
    assert main(["doctor", "--repo", str(repo.path)]) == 1
    text = capsys.readouterr().out
    assert "golangci-lint (linter): CANNOT RUN" in text
    assert "  applies: .golangci.yml; 1 .go file\n" in text
    assert f"  install it with: {got['install']}\n" in text


def test_a_language_server_that_cannot_start_is_reported_but_does_not_fail(
        repo: GitRepo, capsys: pytest.CaptureFixture[str], no_go_tools: None) -> None:
    # A review leaves such a server out (it is not offered), so nothing goes unchecked.
    repo.commit(GO)
    status, doc = doctor(repo, capsys)
    gopls = tool(doc, "gopls")
    assert gopls["state"] == "unavailable" and gopls["markers"] == ["go.mod"]
    assert gopls["install"] and "gopls" in gopls["install"]
    assert status == 0 and doc["problems"] == []
    assert tool(doc, "golangci-lint")["state"] == "unused"


def test_installed_go_tools_report_their_module_versions(
        repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    require_tool("gopls")
    repo.commit({".golangci.yml": "version: \"2\"\n", **GO})
    status, doc = doctor(repo, capsys)
    assert status == 0
    gopls = tool(doc, "gopls")
    assert gopls["state"] == "ready" and gopls["version"].startswith("v0.")
    lint = tool(doc, "golangci-lint")
    assert lint["state"] == "ready" and lint["version"] and lint["version"][0].isdigit()


def test_a_repository_binary_wins_and_says_so(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    eslint = require_tool("eslint")
    repo.commit({"eslint.config.js": "export default [];\n", "a.js": "let x = 1;\n"})
    local = repo.path / "node_modules" / ".bin"
    local.mkdir(parents=True)
    (local / "eslint").symlink_to(eslint)
    status, doc = doctor(repo, capsys)
    got = tool(doc, "eslint")
    assert status == 0 and got["state"] == "ready"
    assert got["executable"] == str(local / "eslint") and got["origin"] == "repository"
    manifest = json.loads((TOOLS_BIN.parent / "eslint" / "package.json").read_text())
    assert got["version"] == manifest["version"]


def test_the_python_checker_the_repository_names_is_the_one_that_applies(
        repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    require_tool("pyright-langserver")
    repo.commit({"pyproject.toml": "[tool.pyright]\nstrict = []\n", "a.py": "x = 1\n"})
    _, doc = doctor(repo, capsys)
    assert tool(doc, "pyright")["state"] == "ready"
    based = tool(doc, "basedpyright")
    assert based["state"] == "unused" and "checker is pyright" in based["why"]
    assert tool(doc, "mypy")["state"] == "unused"  # pyproject.toml, but no [tool.mypy]
    assert "but they do not enable mypy" in tool(doc, "mypy")["why"]


def test_settings_are_checked_and_a_switched_off_tool_is_not_a_problem(
        repo: GitRepo, capsys: pytest.CaptureFixture[str], no_go_tools: None) -> None:
    repo.commit({".golangci.yml": "version: \"2\"\n", **GO,
                 ".reviewbot.yml": "tools: {golangci-lint: {enabled: false}}\n"})
    status, doc = doctor(repo, capsys)
    assert status == 0 and tool(doc, "golangci-lint")["state"] == "off"
    assert doc["config"] == {"source": ".reviewbot.yml", "valid": True, "error": None}
    (repo.path / ".reviewbot.yml").write_text("fail-levle: error\n")  # the file being edited
    status, doc = doctor(repo, capsys)
    assert status == 1 and not doc["config"]["valid"]
    assert "unknown setting 'fail-levle' (did you mean 'fail-level'?)" in doc["config"]["error"]
    assert doc["problems"][0] == doc["config"]["error"]


@pytest.mark.parametrize(("args", "says"), [
    (("--repo", "/no/such/dir"), "--repo /no/such/dir: no such directory"),
    (("--format", "xml"), "invalid choice: 'xml'"),
])
def test_bad_input_is_one_line_exit_2(args: tuple[str, ...], says: str,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    try:
        status = main(["doctor", *args])
    except SystemExit as exc:  # argparse
        status = int(exc.code or 0)
    assert status == 2
    assert says in capsys.readouterr().err


def test_not_a_repository_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--repo", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a git repository" in err


def _facts(**changes: Any) -> report.ToolFacts:
    base: dict[str, Any] = {"name": "ruff", "kind": "linter", "markers": ("ruff.toml",),
                            "candidates": ("ruff.toml",), "suffixes": (".py",), "files": 3,
                            "executable": "/bin/ruff"}
    return report.ToolFacts(**{**base, **changes})


@pytest.mark.parametrize(("changes", "state"), [
    ({}, "ready"),
    ({"executable": None}, "missing"),
    ({"executable": None, "kind": "language server"}, "unavailable"),
    ({"executable": None, "files": 0}, "unused"),
    ({"executable": None, "markers": ()}, "unused"),
    ({"executable": None, "declined": "no"}, "unused"),
    ({"executable": None, "disabled": True}, "off"),
])
def test_only_an_applying_linter_without_a_binary_is_a_problem(changes: dict[str, Any], state: str) -> None:
    built = report.build("1", "/r", report.ConfigFacts(None), [_facts(**changes)])
    assert built.tools[0].state == state
    assert built.exit == (1 if state == "missing" else 0)


def test_the_repository_rules_are_compiled_as_a_review_compiles_them(
        repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    rule = "  - id: no-print\n    language: python\n    rule: {pattern: print($$$A)}\n    message: log\n"
    repo.commit({".reviewbot.yml": "rules:\n" + rule, "a.py": "print(1)\n", "b.js": "x\n"})
    status, doc = doctor(repo, capsys)
    rules = tool(doc, "ast-grep")
    assert status == 0 and rules["state"] == "ready" and rules["kind"] == "rules"
    assert rules["why"] == "1 rule(s) in .reviewbot.yml; 1 file in their languages"
    (repo.path / ".reviewbot.yml").write_text("rules:\n" + rule.replace("print($$$A)", "print(("))
    status, doc = doctor(repo, capsys)
    assert status == 1 and doc["config"]["error"].startswith(".reviewbot.yml rules[no-print]: ")
    assert all(t["name"] != "ast-grep" for t in doc["tools"])


def test_the_text_report_says_in_one_line_why_a_tool_does_not_apply(
        repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.commit({".reviewbot.yml": "tools: {eslint: {enabled: false}}\n", "a.py": "x = 1\n"})
    assert main(["doctor", "--repo", str(repo.path)]) == 0
    text = capsys.readouterr().out
    assert ("\nbiome (linter): does not apply: none of biome.json, biome.jsonc, "
            ".pre-commit-config.yaml found\n") in text
    assert "\neslint (linter): switched off: by .reviewbot.yml (tools: {eslint: {enabled: false}})\n" in text
    assert "settings: .reviewbot.yml: valid (fail-level error, tool-errors fail, timeout 300s)" in text
    assert text.endswith("\nreviewbot doctor: every tool that applies can run\n")
