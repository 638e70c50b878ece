from __future__ import annotations

from bot.forges.github.change import DIALECT
from bot.positions import split_lines
from bot.publishing.gate import Gate
from bot.publishing.placement import Placed
from bot.publishing.policy import place
from bot.publishing.summary import render
from bot.render.markdown import (
    BODY_LIMIT,
    Commented,
    comment_body,
    escape,
    parse_marker,
    safe_fingerprint,
)
from tests.forges.builders import change, finding, result, verdict


def test_escape_keeps_code_spans_and_defuses_html_and_mentions() -> None:
    assert escape("use `a<b>` not <b>@x</b>") == "use `a<b>` not &lt;b&gt;@\u200bx&lt;/b&gt;"


def test_marker_round_trip_and_unsafe_fingerprints() -> None:
    assert safe_fingerprint("abc:1") == "abc:1"
    assert safe_fingerprint("a-->b").startswith("h")
    f = finding("a.py", 2, message="m")
    body = comment_body(Commented(verdict(f, "fp"), "fp", split_lines("x\ny\nz\n")), DIALECT)
    marker = parse_marker(body.text)
    assert marker is not None and (marker.fingerprint, marker.digest) == ("fp", body.digest)


def test_body_has_badge_link_message_frame_suggestion() -> None:
    f = finding("a.py", 2, message="`y` is unused", fix=((2, 1, 3, 1, ""),))
    text = comment_body(Commented(verdict(f, "fp"), "fp", split_lines("x = 1\ny = 2\nz = 3\n")),
                        DIALECT).text
    assert text.startswith("🆕 **Introduced** · 🔴 error · [`ruff` `F841`](https://docs.astral.sh/")
    assert "`y` is unused" in text
    assert "█ 2 | y = 2" in text and "  1 | x = 1" in text and "  3 | z = 3" in text


def test_digest_ignores_line_numbers_but_not_code() -> None:
    text = split_lines("a\nb = 1\nc\n")
    moved = split_lines("new\nnew\na\nb = 1\nc\n")
    changed = split_lines("a\nb = 1\nd\n")
    one = comment_body(Commented(verdict(finding("a.py", 2), "fp"), "fp", text), DIALECT)
    two = comment_body(Commented(verdict(finding("a.py", 4), "fp"), "fp", moved), DIALECT)
    three = comment_body(Commented(verdict(finding("a.py", 2), "fp"), "fp", changed), DIALECT)
    assert one.digest == two.digest != three.digest
    assert one.text != two.text  # the frame shows the new numbers


def test_huge_message_keeps_the_marker_under_the_limit() -> None:
    f = finding("a.py", 1, message="x" * 200_000)
    body = comment_body(Commented(verdict(f, "fp"), "fp", ["y\n" * 10]), DIALECT)
    assert len(body.text) < BODY_LIMIT and parse_marker(body.text) is not None


def test_summary_sections() -> None:
    text = split_lines("".join(f"v{n} = {n}\n" for n in range(1, 11)))
    found = [verdict(finding("a.py", 2), "a"),
             verdict(finding("a.py", 9, message="broke it"), "b", where="elsewhere"),
             verdict(finding("a.py", 5, message="old one"), "c", scope="preexisting")]
    res = result("c" * 40, found, [change("a.py", range(1, 4))])
    page = render(res, Placed(place(res, {"a.py": text}, dialect=DIALECT)), Gate(1, "error"),
                  {"a.py": text})
    assert page.startswith("<!-- reviewbot:summary -->")
    assert "Gate ❌ **fails**" in page and "merge base `bbbbbbbbbbbb`" in page
    assert "| findings | 2 | 0 | 1 | 0 |" in page
    assert "### Caused outside the diff (1)" in page and "█  9 | v9 = 9" in page
    assert "<details><summary>📌 1 pre-existing finding" in page and "old one" in page
    assert "| ruff | 0.17.6 | ✅ ok |" in page


class Counting(list[str]):
    """File lines that remember which ones were read."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__(lines)
        self.read: set[int] = set()

    def __getitem__(self, index):  # type: ignore[no-untyped-def, override]
        if isinstance(index, int):
            self.read.add(index)
        return super().__getitem__(index)

    def __iter__(self):  # type: ignore[no-untyped-def]
        self.read.update(range(len(self)))
        return super().__iter__()


def test_a_frame_reads_its_lines_not_the_whole_file() -> None:
    from bot.render.markdown import frame

    lines = Counting([f"x{n} = {n}\n" for n in range(1, 100_001)])
    shown = frame(lines, finding("a.py", 50_000))
    assert "x50000 = 50000" in shown and "x49999" in shown and "x50001" in shown
    assert lines.read == {49_998, 49_999, 50_000}
