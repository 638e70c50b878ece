"""A comment gone between the read and the write: the run goes on, and says so."""

from __future__ import annotations

import pytest

from bot.errors import NotFound, ReadOnly
from bot.forges import meanwhile


def gone() -> None:
    raise NotFound("not found (404)")


def refused() -> None:
    raise ReadOnly("the token may not write here")


def test_an_edit_of_a_deleted_comment_is_said_and_skipped(capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    meanwhile.edit("note", 12, gone)
    assert capsys.readouterr().out == "reviewbot: note 12 was deleted meanwhile; not edited\n"


def test_a_delete_of_a_deleted_comment_is_what_was_wanted(capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    meanwhile.delete(gone)
    assert capsys.readouterr().out == ""


def test_a_reaction_to_a_deleted_comment_is_said_and_skipped(
        capsys: pytest.CaptureFixture[str]) -> None:
    meanwhile.react("comment", 5, "eyes reaction", gone)
    assert capsys.readouterr().out == ("reviewbot: comment 5 was deleted meanwhile; "
                                       "no eyes reaction\n")


@pytest.mark.parametrize("step", [lambda: meanwhile.edit("note", 1, refused),
                                  lambda: meanwhile.delete(refused),
                                  lambda: meanwhile.react("comment", 1, "+1", refused)])
def test_any_other_answer_is_the_caller_s(step: object) -> None:
    with pytest.raises(ReadOnly):
        step()  # type: ignore[operator]
