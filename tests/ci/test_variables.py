"""CI variables read by their form: set but malformed is refused naming the variable."""

from __future__ import annotations

import pytest

from bot.ci import variables
from bot.ci.variables import ABSOLUTE, BRANCH, NUMBER, PROJECT, URL
from bot.errors import BotError, Exit


@pytest.mark.parametrize(("form", "good", "bad"), [
    (BRANCH, ["main", "feature/x-1", "0" * 39, "v1.2", "ünï"],
     ["-x", "a..b", "a b", "a~1", "a^", "a:b", "a?", "a*", "a[", "a\\b", "x.lock", "a/", "/a",
      ".a", "a/.b", "a//b", "@", "a@{1}", "a\n", "a\x7f"]),
    (URL, ["https://gitlab.example", "http://localhost:8080/api/v4"],
     ["x", "gitlab.example", "ftp://gitlab.example", "https://", "https://[::1", "https://a b"]),
    (NUMBER, ["1", "42"], ["0", "007", "-1", "1.5", "x", "1" * 20]),
    (PROJECT, ["group/demo", "a/b/c", "u_1/re.po"], ["demo", "/a", "a/", "a//b", "a/-b", "a b/c"]),
    (ABSOLUTE, ["/builds/demo", "/a b"], ["builds", "./x", "/a\nb"]),
])
def test_forms(form: variables.Form, good: list[str], bad: list[str]) -> None:
    assert [v for v in good if not form.valid(v)] == []
    assert [v for v in bad if form.valid(v)] == []


def test_set_but_malformed_is_refused_naming_the_variable() -> None:
    assert variables.optional({}, "X", NUMBER) is None
    assert variables.optional({"X": ""}, "X", NUMBER) is None  # empty: not set
    assert variables.optional({"X": "7"}, "X", NUMBER) == "7"
    with pytest.raises(BotError) as caught:
        variables.optional({"X": "7\n"}, "X", NUMBER)
    assert caught.value.code == Exit.USAGE
    assert caught.value.message == "X='7\\n' is not a positive number"
    with pytest.raises(BotError) as caught:
        variables.required({}, "X", NUMBER, "set it")
    assert (caught.value.code, caught.value.message) == (Exit.USAGE, "X is not set: set it")
