"""The relay commands' shared edge (`bot/commands/relay.py`): the payload read as JSON from a
file or stdin, the one line when nothing is relayed, the token from the environment."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot.commands import relay
from bot.errors import BotError, Exit


def test_the_payload_is_read_from_a_file_or_stdin(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "hook.json").write_text('{"eventType": "x"}', encoding="utf-8")
    assert relay.payload(str(tmp_path / "hook.json"), "webhook") == {"eventType": "x"}
    monkeypatch.setattr("sys.stdin", io.StringIO('[1]'))
    assert relay.payload("-", "service hook") == [1]


def test_a_payload_that_is_not_there_or_not_json_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(BotError, match="cannot read the webhook payload") as missing:
        relay.payload(str(tmp_path / "nothing.json"), "webhook")
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(BotError, match=r"^the service hook payload is not JSON") as bad:
        relay.payload(str(tmp_path / "bad.json"), "service hook")
    assert missing.value.code == bad.value.code == Exit.USAGE


def test_nothing_to_relay_is_one_line_and_success(capsys: pytest.CaptureFixture[str]) -> None:
    assert relay.nothing("the comment was deleted") == 0
    assert capsys.readouterr().err == "reviewbot: nothing to relay: the comment was deleted\n"


def test_no_token_says_what_to_set() -> None:
    assert relay.token({"T": "s3cret"}, "T", "Bitbucket", "set T") == "s3cret"
    with pytest.raises(BotError, match=r"^no Azure DevOps token: set T$") as raised:
        relay.token({"T": ""}, "T", "Azure DevOps", "set T")
    assert raised.value.code == Exit.USAGE
