"""Untrusted text on one terminal line: paths quoted as git quotes them, controls escaped."""

from __future__ import annotations

import pytest

from bot.render.quoting import printable, quote_path


@pytest.mark.parametrize(("path", "shown"), [
    ("src/a.py", "src/a.py"),
    ("dir with space/é.py", "dir with space/é.py"),  # printable names are left alone
    ("a\nb.py", '"a\\nb.py"'),
    ("t\tab.py", '"t\\tab.py"'),
    ("q\"uote\\.py", '"q\\"uote\\\\.py"'),  # quoted only when something else needs it
    ("esc\x1b[31m.py", '"esc\\x1b[31m.py"'),
    ("c1\x9b2J.py", '"c1\\x9b2J.py"'),  # CSI as a single C1 character
    ("rtl\u202eyp.py", '"rtl\\u202eyp.py"'),
    ("ls\u2028.py", '"ls\\u2028.py"'),
    ("caf\udce9.py", '"caf\\xe9.py"'),  # a name that is not UTF-8: its byte, printable
])
def test_quote_path(path: str, shown: str) -> None:
    assert quote_path(path) == shown


def test_a_plain_path_with_a_quote_or_backslash_is_quoted_unambiguously() -> None:
    assert quote_path('a"b') == '"a\\"b"' and quote_path("a\\nb") == '"a\\\\nb"'
    assert quote_path("a\\nb") != quote_path("a\nb")


def test_printable_escapes_controls_only() -> None:
    assert printable("`x` is 名前 — ok") == "`x` is 名前 — ok"
    assert printable("a\r\nb\x00\x7f") == "a\\r\\nb\\x00\\x7f"
