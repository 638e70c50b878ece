"""`.reviewbot.yml` sweep: {label}: the tracking issue's label, checked like every setting."""

from __future__ import annotations

import pytest

from bot import config
from bot.errors import BotError


def test_the_default_label() -> None:
    assert config.parse("timeout: 10\n", "s").sweep_label == "reviewbot:regressions"


def test_a_label_of_its_own() -> None:
    assert config.parse("sweep: {label: 'ci: regressions'}\n", "s").sweep_label == "ci: regressions"


@pytest.mark.parametrize("text,says", [
    ("sweep: {lable: x}\n", "unknown setting in sweep: 'lable' (did you mean 'label'?)"),
    ("sweep: [label]\n", "sweep must be a mapping"),
    ("sweep: {label: 'a,b'}\n", "without commas"),
    ("sweep: {label: ''}\n", "sweep.label must be a label name"),
    ("sweep: {label: " + "x" * 51 + "}\n", "1 to 50 characters"),
    ("swep: {label: x}\n", "unknown setting 'swep' (did you mean 'sweep'?)"),
])
def test_bad_sweep_settings_say_how_to_fix_them(text: str, says: str) -> None:
    with pytest.raises(BotError) as caught:
        config.parse(text, ".reviewbot.yml")
    assert says in caught.value.message
    assert "\n" not in caught.value.message
