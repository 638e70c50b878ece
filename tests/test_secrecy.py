"""What the bot keeps to itself: the credentials, known by name or value, and the variables no
process it starts inherits."""

from __future__ import annotations

import pytest

from bot import secrecy


@pytest.mark.parametrize(("name", "value", "secret"), [
    ("INPUT_GITHUB-TOKEN", "x", True), ("ACTIONS_RUNTIME_TOKEN", "x", True),
    ("CI_JOB_JWT_V2", "x", True), ("CI_REGISTRY_PASSWORD", "x", True),
    ("CI_REPOSITORY_URL", "https://gitlab-ci-token:abc@gitlab.example/g/p.git", True),
    ("CI_PROJECT_URL", "https://gitlab.example/g/p", False),
    ("GIT_URL", "ssh://git@example.com/p.git", False), ("GITHUB_SHA", "abc", False),
])
def test_what_counts_as_a_secret(name: str, value: str, secret: bool) -> None:
    assert secrecy.is_secret(name, value) is secret


@pytest.mark.parametrize("name", secrecy.FILE_COMMANDS)
def test_the_runner_s_file_commands_are_withheld(name: str) -> None:
    assert secrecy.withheld(name, "set_env")
    assert not secrecy.is_secret(name, "set_env")


def test_a_credential_is_withheld_and_an_ordinary_variable_is_not() -> None:
    assert secrecy.withheld("GITHUB_TOKEN", "x")
    assert not secrecy.withheld("GITHUB_SHA", "abc")
