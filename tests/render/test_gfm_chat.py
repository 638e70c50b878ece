"""The replies to slash commands, parsed as GitHub renders them: end to end against the fake
GitHub and a real origin (tests/flows), each reply checked for structure, raw HTML and pings."""

from __future__ import annotations

from tests import gfm
from tests.flows.conftest import World
from tests.flows.conftest import world as world  # the fixture, shared with tests/flows


def _replies(world: World, user: str, body: str) -> list[str]:
    world.comment(user, body)
    replies = world.replies()
    assert replies
    return replies


def test_help_and_ast_grep_replies_are_inert(world: World) -> None:
    for reply in _replies(world, "wes", "/help\n/ast-grep print($A) --lang python"):
        gfm.check_inert(reply)
    frames = [f for reply in world.replies() for f in gfm.fences(reply)]
    assert any("print(sys.argv)" in f.content for f in frames)


def test_the_ast_edit_reply_and_its_plan_are_inert(world: World) -> None:
    [reply] = _replies(world, "wes", "/ast-edit print($A) => log($A) --lang python")
    gfm.check_inert(reply)
    assert [f.info for f in gfm.fences(reply)] == ["diff"]


def test_a_quoted_command_line_cannot_ping_or_render_html(world: World) -> None:
    for reply in _replies(world, "wes", "/ast-grep nothing_here($A) --lang python @alice #12 <b>x"):
        gfm.check_inert(reply)
