"""A checkout whose git configuration holds a credential is refused before any tool runs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.errors import BotError, Exit
from bot.safety import gitcreds


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.delenv("GITLAB_CI", raising=False)
    subprocess.run(["git", "init", "-q", str(tmp_path / "r")], check=True)
    return tmp_path / "r"


def config(repo: Path, key: str, value: str) -> None:
    subprocess.run(["git", "-C", str(repo), "config", key, value], check=True)


def test_a_clean_checkout_passes(repo: Path) -> None:
    config(repo, "remote.origin.url", "https://github.com/octo/demo")
    config(repo, "credential.helper", "")  # a helper answers git only, on demand
    gitcreds.refuse_held(repo)


@pytest.mark.parametrize(("key", "value"), [
    # actions/checkout's default (persist-credentials: true)
    ("http.https://github.com/.extraheader", "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX3g="),
    # GitLab Runner without FF_GIT_URLS_WITHOUT_TOKENS
    ("remote.origin.url", "https://gitlab-ci-token:glcbt-secretvalue@gitlab.example/g/p.git"),
    ("url.https://oauth2:glpat-secretvalue@gitlab.example/.insteadOf", "https://gitlab.example/"),
])
def test_a_credential_in_the_configuration_is_refused_without_showing_it(
        repo: Path, key: str, value: str) -> None:
    config(repo, key, value)
    with pytest.raises(BotError) as caught:
        gitcreds.refuse_held(repo)
    assert caught.value.code == Exit.SECURITY
    assert "persist-credentials: false" in caught.value.message
    assert "FF_GIT_URLS_WITHOUT_TOKENS" in caught.value.message
    assert "secretvalue" not in caught.value.message and "eC1hY2" not in caught.value.message
    assert "local " in caught.value.message


def test_outside_ci_the_developers_own_configuration_is_theirs(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config(repo, "remote.origin.url", "https://me:ghp_secretvalue@github.com/octo/demo")
    monkeypatch.delenv("GITHUB_ACTIONS")
    gitcreds.refuse_held(repo)


def test_a_gitlab_merge_request_pipeline_keeps_its_own_job_token_with_a_warning(
        repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    config(repo, "remote.origin.url", "https://gitlab-ci-token:glcbt-secretvalue@gitlab.example/g/p.git")
    monkeypatch.delenv("GITHUB_ACTIONS")
    monkeypatch.setenv("GITLAB_CI", "true")
    monkeypatch.setenv("CI_PIPELINE_SOURCE", "merge_request_event")
    gitcreds.refuse_held(repo)
    err = capsys.readouterr().err
    assert "holds the job token (local remote.origin.url)" in err and "secretvalue" not in err
    # A trigger pipeline (commands, the label) runs the default branch's definition: refused.
    monkeypatch.setenv("CI_PIPELINE_SOURCE", "trigger")
    with pytest.raises(BotError):
        gitcreds.refuse_held(repo)
    # And any other credential, in a merge request pipeline too.
    monkeypatch.setenv("CI_PIPELINE_SOURCE", "merge_request_event")
    config(repo, "http.https://gitlab.example/.extraheader", "AUTHORIZATION: basic x")
    with pytest.raises(BotError):
        gitcreds.refuse_held(repo)
