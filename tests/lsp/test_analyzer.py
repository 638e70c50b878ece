"""What a language server makes of a repository without starting: the survey the doctor reports."""

from __future__ import annotations

from pathlib import Path

from bot.analyzer import Resolution
from bot.lsp.registry import SERVERS


def test_a_server_is_surveyed_from_the_root_markers_above_its_files(tmp_path: Path) -> None:
    (tmp_path / "svc").mkdir()
    (tmp_path / "svc" / "go.mod").write_text("module x\n\ngo 1.21\n")
    files = ["svc/a.go", "svc/b.go", "README.md"]
    survey = SERVERS["gopls"].survey(tmp_path, files, Resolution("gopls", "v1"))
    assert (survey.kind, survey.markers, survey.candidates) == (
        "language server", ("svc/go.mod",), ("go.work", "go.mod"))
    assert (survey.suffixes, survey.files, survey.version, survey.declined) == (
        (".go",), 2, "v1", "")


def test_the_python_checker_the_repository_did_not_choose_is_declined(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.pyright]\n")
    missing = Resolution(None, message="basedpyright-langserver not found")
    survey = SERVERS["basedpyright"].survey(tmp_path, ["a.py"], missing)
    assert survey.markers == ("pyproject.toml",)
    assert survey.declined.startswith("the repository's Python checker is pyright")
    assert survey.install_hint and survey.version is None
    assert SERVERS["pyright"].survey(tmp_path, ["a.py"], missing).declined == ""
