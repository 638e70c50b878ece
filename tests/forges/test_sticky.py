"""The sticky summary's rules, forge-neutral: the forges' own paths are in the fault matrix
(tests/faults/test_forge_matrix.py, every summary write under every fault)."""

from __future__ import annotations

import pytest

from bot.errors import NotFound, Uncertain
from bot.forges.sticky import Sticky, Writes, keep, note


class Forge:
    """A forge holding at most one summary; `faults` are raised by the next posts, in turn,
    each after (`lost`) or before the post takes effect."""

    def __init__(self, faults: list[str] | None = None) -> None:
        self.comments: dict[int, str] = {}
        self.calls: list[str] = []
        self.faults = faults or []

    def writes(self) -> Writes[None]:
        return Writes(self.edit, self.post, self.find, lambda seconds: None, lambda n: 0.0,
                      retries=2)

    def edit(self, current: Sticky[None], body: str) -> Sticky[None]:
        self.calls.append(f"edit {current.id}")
        if current.id not in self.comments:
            raise NotFound("gone", 404)
        self.comments[current.id] = body
        return Sticky(current.id, body, None)

    def post(self, body: str) -> Sticky[None]:
        self.calls.append("post")
        fault = self.faults.pop(0) if self.faults else ""
        if fault == "before":
            raise Uncertain("timeout")
        cid = len(self.calls)
        self.comments[cid] = body
        if fault == "lost":
            raise Uncertain("502 after the effect")
        return Sticky(cid, body, None)

    def find(self) -> Sticky[None] | None:
        self.calls.append("find")
        return next((Sticky(c, b, None) for c, b in self.comments.items()), None)


def test_a_summary_that_already_says_it_is_not_sent() -> None:
    forge = Forge()
    assert keep("x", Sticky(1, "x", None), forge.writes()) == Sticky(1, "x", None)
    assert forge.calls == []


def test_a_summary_is_edited_in_place() -> None:
    forge = Forge()
    forge.comments[1] = "old"
    assert keep("new", Sticky(1, "old", None), forge.writes()) == Sticky(1, "new", None)
    assert forge.calls == ["edit 1"] and forge.comments == {1: "new"}


def test_a_summary_deleted_since_it_was_read_is_posted_again(
        capsys: pytest.CaptureFixture[str]) -> None:
    forge = Forge()
    made = keep("new", Sticky(1, "old", None), forge.writes())
    assert made is not None and forge.comments == {made.id: "new"}
    assert forge.calls == ["edit 1", "post"]
    assert "summary comment 1 was deleted meanwhile; posting it again" in capsys.readouterr().out


def test_a_post_whose_answer_was_lost_is_found_not_made_twice() -> None:
    forge = Forge(["lost"])
    made = keep("x", None, forge.writes())
    assert forge.calls == ["post", "find"] and list(forge.comments.values()) == ["x"]
    assert made == Sticky(1, "x", None)


def test_a_post_lost_before_its_effect_is_sent_again_once() -> None:
    forge = Forge(["before"])
    keep("x", None, forge.writes())
    assert forge.calls == ["post", "find", "post"] and list(forge.comments.values()) == ["x"]


def test_the_last_uncertain_answer_is_raised() -> None:
    forge = Forge(["before"] * 3)
    with pytest.raises(Uncertain):
        keep("x", None, forge.writes())
    assert forge.calls.count("post") == 3 and forge.comments == {}


def test_a_note_is_made_only_when_asked_and_else_kept_where_it_is() -> None:
    forge = Forge()
    note("x", forge.writes(), create=False)
    assert forge.calls == ["find"] and forge.comments == {}
    note("x", forge.writes(), create=True)
    assert forge.calls == ["find", "find", "post"] and list(forge.comments.values()) == ["x"]
    note("y", forge.writes(), create=False)  # there now: edited, asked to create or not
    assert forge.calls[-2:] == ["find", "edit 3"] and list(forge.comments.values()) == ["y"]
