"""The token for one git process (`bot/forges/gitauth.py`): a Basic header for one server."""

from __future__ import annotations

import base64

from bot.forges.gitauth import header_env


def test_the_token_is_a_basic_header_for_that_server_only() -> None:
    env = header_env("x-token-auth", "s3cret", "https://bitbucket.org/")
    assert env["GIT_CONFIG_COUNT"] == "1"
    assert env["GIT_CONFIG_KEY_0"] == "http.https://bitbucket.org/.extraheader"
    value = env["GIT_CONFIG_VALUE_0"]
    assert value.startswith("AUTHORIZATION: basic ") and "s3cret" not in value
    assert base64.b64decode(value.removeprefix("AUTHORIZATION: basic ")) == b"x-token-auth:s3cret"


def test_no_token_no_header() -> None:
    assert header_env("reviewbot", "", "https://gitea.test") == {}
