"""The client's pure parts: capability set and configuration answers."""

from __future__ import annotations

from bot.lsp.client import capabilities, lookup


def test_configuration_answers_sections_or_null() -> None:
    settings = {"gopls": {"diagnosticsDelay": "0s"}, "python": {"analysis": {"x": 1}}}
    assert lookup(settings, "gopls") == {"diagnosticsDelay": "0s"}
    assert lookup(settings, "python.analysis") == {"x": 1}
    assert lookup(settings, "python.analysis.missing") is None
    assert lookup(settings, "ts/js") is None
    assert lookup(settings, None) == settings


def test_pull_capability_only_when_asked() -> None:
    assert "diagnostic" in capabilities(True)["textDocument"]
    assert "diagnostic" not in capabilities(False)["textDocument"]
    caps = capabilities(False)
    assert caps["window"]["workDoneProgress"] is True
    assert caps["workspace"]["configuration"] is True
    assert caps["textDocument"]["publishDiagnostics"]
