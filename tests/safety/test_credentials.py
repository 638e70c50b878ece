"""Secrets leave the environment when a command starts and reach no process the bot starts."""

from __future__ import annotations

import os
import sys

import pytest

from bot import proc
from bot.safety import credentials


def test_secrets_are_held_out_of_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_abc")
    monkeypatch.setenv("CI_REPOSITORY_URL", "https://gitlab-ci-token:glcbt-x@gitlab.example/a.git")
    monkeypatch.setenv("GITHUB_REPOSITORY", "o/r")
    with credentials.captured() as held:
        assert "GITHUB_TOKEN" not in os.environ and "CI_REPOSITORY_URL" not in os.environ
        assert held["GITHUB_TOKEN"] == "ghs_abc"
        assert credentials.environ()["GITHUB_TOKEN"] == "ghs_abc"
        assert credentials.environ()["GITHUB_REPOSITORY"] == "o/r"
        seen = proc.run([sys.executable, "-c", "import os, json; print(json.dumps(dict(os.environ)))"])
        assert "ghs_abc" not in seen.out and "glcbt-x" not in seen.out
    assert os.environ["GITHUB_TOKEN"] == "ghs_abc"  # put back for the rest of this process
    assert credentials.environ() == dict(os.environ)  # nothing held any more


def test_tools_get_no_file_command_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_ENV", "/tmp/set_env")
    monkeypatch.setenv("GITHUB_OUTPUT", "/tmp/set_output")
    seen = proc.run([sys.executable, "-c", "import os; print(sorted(os.environ))"])
    assert "GITHUB_ENV" not in seen.out and "GITHUB_OUTPUT" not in seen.out
