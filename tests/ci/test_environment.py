"""Which CI a run is in; outside any of them, `reviewbot ci` says what each CI sets."""

from __future__ import annotations

import pytest

from bot.ci import environment
from bot.ci.gitea_actions import GiteaActions
from bot.ci.github_actions import GitHubActions
from bot.ci.gitlab_ci import GitLabCI
from bot.cli import main
from bot.errors import BotError, Exit


def test_each_ci_is_known_by_what_its_runner_sets() -> None:
    assert isinstance(environment.require({"GITLAB_CI": "true"}), GitLabCI)
    assert isinstance(environment.require({"GITEA_ACTIONS": "true"}), GiteaActions)
    assert isinstance(environment.require({"FORGEJO_ACTIONS": "true"}), GiteaActions)
    assert isinstance(environment.require({"GITHUB_ACTIONS": "true"}), GitHubActions)
    assert isinstance(environment.require({"GITHUB_EVENT_NAME": "pull_request"}), GitHubActions)


def test_outside_ci_the_message_names_the_variables_of_all_three() -> None:
    with pytest.raises(BotError) as caught:
        environment.require({"HOME": "/root", "PATH": "/usr/bin"})
    assert caught.value.code == Exit.USAGE
    message = caught.value.message
    for name in ("GITHUB_EVENT_NAME", "GITLAB_CI", "GITEA_ACTIONS", "FORGEJO_ACTIONS",
                 "reviewbot review"):
        assert name in message, message


def test_ci_outside_ci_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("GITHUB_ACTIONS", "GITHUB_EVENT_NAME", "GITHUB_EVENT_PATH", "GITHUB_API_URL",
                 "GITLAB_CI", "GITEA_ACTIONS", "FORGEJO_ACTIONS"):
        monkeypatch.delenv(name, raising=False)
    assert main(["ci"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("reviewbot: not in a CI job:") and err.count("\n") == 1, err
