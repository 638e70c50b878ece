"""`.reviewbot.yml` `commands:` and `apply:`: defaults, values, and typos with a did-you-mean."""

from __future__ import annotations

import pytest

from bot.config import DEFAULT_AUTHOR, parse
from bot.errors import BotError


def test_defaults() -> None:
    config = parse("", ".reviewbot.yml")
    assert (config.command_prefix, config.command_permission) == ("/", "write")
    assert (config.apply_label, config.apply_author) == ("reviewbot:apply", DEFAULT_AUTHOR)


def test_values() -> None:
    config = parse("commands: {prefix: '!', permission: maintain}\n"
                   "apply: {label: bot-apply, author: 'Bot <bot@example.com>'}\n", ".reviewbot.yml")
    assert (config.command_prefix, config.command_permission) == ("!", "maintain")
    assert (config.apply_label, config.apply_author) == ("bot-apply", "Bot <bot@example.com>")


@pytest.mark.parametrize(("text", "message"), [
    ("command: {prefix: /}", "unknown setting 'command' (did you mean 'commands'?)"),
    ("commands: {prefx: /}", "unknown setting in commands: 'prefx' (did you mean 'prefix'?)"),
    ("commands: {permission: maintainer}", "commands.permission must be one of write, maintain, "
                                           "not 'maintainer' (did you mean 'maintain'?)"),
    ("commands: {permission: triage}", "commands.permission must be one of write, maintain"),
    ("commands: /", "commands must be a mapping of prefix, permission"),
    ("apply: {lable: x}", "unknown setting in apply: 'lable' (did you mean 'label'?)"),
    ("apply: {label: ''}", "apply.label must be a non-empty one-line string"),
    ("apply: {author: bot}", "apply.author must read \"Name <email>\""),
])
def test_typos_say_what_to_write(text: str, message: str) -> None:
    with pytest.raises(BotError) as caught:
        parse(text, ".reviewbot.yml")
    assert message in caught.value.message
