"""The markers as Bitbucket keeps them hidden (`bot.forges.bitbucket.markers`): a link
reference definition on the wire, the HTML comment it was when read back, exactly."""

from __future__ import annotations

import pytest

from bot.forges.bitbucket.markers import from_wire, to_wire
from bot.render.markdown import SUMMARY_MARKER, marker, parse_marker

BODIES = [
    f"**ruff** `F401` unused import {marker('fp-1', 'ab12')}",
    f"{SUMMARY_MARKER}\n## reviewbot\n\ntext\n\n<!-- reviewbot:state eyJ2IjoxfQ+/= -->",
    "line\n\n~~Open~~ **Fixed** in `0123456789ab`. <!-- reviewbot:fixed -->",
    "<!-- reviewbot:reply 0f1e2d -->\n\nafter",
    "no marker here",
    "<!-- not ours --> stays an HTML comment",
]


@pytest.mark.parametrize("body", BODIES)
def test_a_body_comes_back_as_it_was_sent(body: str) -> None:
    wire = to_wire(body)
    assert "<!-- reviewbot:" not in wire
    assert from_wire(wire) == body
    assert from_wire(wire.rstrip()) == body  # Bitbucket may strip a body's trailing lines


def test_each_marker_is_a_definition_of_its_own_paragraph() -> None:
    wire = to_wire(BODIES[0])
    assert wire.endswith('\n\n[//]: # "reviewbot:fp=fp-1 h=ab12"\n\n')
    assert parse_marker(from_wire(wire)) == parse_marker(BODIES[0])


def test_someone_else_s_text_is_left_as_written() -> None:
    assert from_wire('quoted: [//]: # "reviewbot:summary"') == (
        'quoted: [//]: # "reviewbot:summary"')
