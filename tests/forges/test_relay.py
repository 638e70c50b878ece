"""The relays' shared core (`bot/forges/relay.py`): a comment's command lines, and a payload's
fields read strictly, each bad one named in a usage error."""

from __future__ import annotations

import pytest

from bot.errors import BotError, Exit
from bot.forges.relay import Fields, commands

FIELDS = Fields("pullrequest:comment_created webhook")


def test_the_command_lines_are_the_lines_that_start_with_the_prefix() -> None:
    assert commands("looks good\n  /fix  \n/apply\nnot /this", "/") == ["/fix", "/apply"]
    assert commands("no command here", "/") == []
    assert commands(None, "/") == [] and commands({"raw": "/fix"}, "/") == []


def test_a_field_that_is_missing_or_mistyped_names_itself() -> None:
    payload = {"pullrequest": {"id": 0, "source": "main"}, "comment": {"id": True}}
    cases = [(lambda: FIELDS.obj(payload["pullrequest"], "source", "pullrequest."),
              "`pullrequest.source` is missing or not an object"),
             (lambda: FIELDS.text(payload, "repository", ""), "`repository` is missing or not text"),
             (lambda: FIELDS.number(payload["pullrequest"], "id", "pullrequest."),
              "`pullrequest.id` is not a positive number"),
             (lambda: FIELDS.number(payload["comment"], "id", "comment."),
              "`comment.id` is not a positive number")]
    for read, why in cases:
        with pytest.raises(BotError) as raised:
            read()
        assert raised.value.code == Exit.USAGE
        assert raised.value.message == f"malformed pullrequest:comment_created webhook: {why}"
    assert FIELDS.number({"id": 7}, "id", "") == 7 and FIELDS.text({"a": "b"}, "a", "") == "b"
