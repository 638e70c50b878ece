"""Token maps through rewritten regions, and the verdict engine alone under formatter-like
rewrites (hypothesis): splitting and joining lines, trailing commas, quote styles and
re-indentation never make a finding new, changed or fixed."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.model import Finding
from bot.verdicts.classify import classify
from bot.verdicts.reflow import Landing, TokenMap
from bot.verdicts.tokens import read
from tests.verdicts.test_classify import build, f, lines, lmap

WRAPPED = "def f(\n    a,\n    b=[],\n    c=None,\n):\n    return a\n"


def test_a_token_of_a_wrapped_signature_lands_on_its_new_line() -> None:
    base, head = "def f(a, b=[], c=None):\n    return a\n", WRAPPED
    tm = TokenMap(read("a.py", lines(base)), read("a.py", lines(head)), lmap(base, head),
                  len(lines(base)))
    assert tm.land(1, 12) == Landing(3, 7, True)  # the `[` of `b=[]`
    assert tm.land(1, 18) == Landing(4, 7, True)  # `None`


def test_a_lone_bracket_line_does_not_cut_a_region() -> None:
    """`}` pairs with any other `}`: such a pairing must not split one rewritten statement."""
    base = "function g() {\n  if (x) { y() }\n  let z = { a: 1, b: 2 }\n}\n"
    head = "function g() {\n  if (x) {\n    y()\n  }\n  let z = {\n    a: 1,\n    b: 2,\n  }\n}\n"
    tm = TokenMap(read("a.js", lines(base)), read("a.js", lines(head)),
                  lmap(base, head, "a.js"), len(lines(base)))
    assert tm.land(3, 7) == Landing(5, 7, True)  # `z`
    assert tm.land(3, 19) == Landing(7, 5, True)  # `b`


def test_an_edited_token_lands_through_its_neighbour_inexactly() -> None:
    base, head = "x = compute(alpha, beta)\n", "x = compute(\n    alpha,\n    gamma,\n)\n"
    tm = TokenMap(read("a.py", lines(base)), read("a.py", lines(head)), lmap(base, head),
                  len(lines(base)))
    landing = tm.land(1, 20)
    assert landing is not None and not landing.exact


def test_a_region_past_the_budget_is_left_to_the_line_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("bot.verdicts.reflow.REGION_PAIRS", 1)
    base, head = "x = compute(alpha, beta)\n", "x = compute(\n    alpha,\n    gamma,\n)\n"
    tm = TokenMap(read("a.py", lines(base)), read("a.py", lines(head)), lmap(base, head),
                  len(lines(base)))
    assert tm.skipped == 1 and tm.land(1, 13) is None


# --- the property ---------------------------------------------------------------------------

ARGS = ["alpha", "beta_value", "1", "'text'", "obj.attr", "[]", "None", "f(x)"]
NAMES = ["result", "total", "value", "item_count"]
CALLS = ["compute", "fetch_all", "transform"]
LAYOUTS = ["flat", "split", "split-comma", "hug"]


@dataclass(frozen=True)
class Statement:
    target: str
    call: str
    args: tuple[str, ...]


def _render(statements: list[Statement], layouts: list[str], indent: str, quote: str
            ) -> tuple[str, list[tuple[int, int]]]:
    """The program text and the (line, column) of every token, in a fixed token order."""
    out: list[str] = ["if flag:\n"] if indent else []
    where: list[tuple[int, int]] = []

    def put(row: list[str], text: str) -> None:
        where.append((len(out) + 1, len("".join(row)) + 1))
        row.append(text)

    for s, layout in zip(statements, layouts, strict=True):
        row = [indent]
        put(row, s.target)
        row.append(" ")
        put(row, "=")
        row.append(" ")
        put(row, s.call)
        put(row, "(")
        args = [a.replace("'", quote) for a in s.args]
        if layout == "flat":
            for i, arg in enumerate(args):
                if i:
                    put(row, ",")
                    row.append(" ")
                put(row, arg)
            put(row, ")")
            out.append("".join(row) + "\n")
            continue
        out.append("".join(row) + "\n")
        row = [indent + "    "]
        for i, arg in enumerate(args):
            put(row, arg)
            if i < len(args) - 1:
                put(row, ",")
                if layout == "hug":
                    row.append(" ")
                else:
                    out.append("".join(row) + "\n")
                    row = [indent + "    "]
        if layout == "split-comma":
            row.append(",")
        out.append("".join(row) + "\n")
        row = [indent]
        put(row, ")")
        out.append("".join(row) + "\n")
    return "".join(out), where


@st.composite
def reformatted(draw: st.DrawFn) -> tuple[str, str, list[Finding], list[Finding]]:
    # Distinct statements: copies of one statement laid out differently on both sides leave the
    # line map free to pair any copy with any (a known limit; one crossing is undone, see
    # test_two_copies_the_line_map_crossed).
    statements = draw(st.lists(st.builds(
        Statement, st.sampled_from(NAMES), st.sampled_from(CALLS),
        st.lists(st.sampled_from(ARGS), min_size=1, max_size=4).map(tuple)), min_size=1, max_size=8,
        unique=True))
    n = len(statements)
    indent_base, indent_head = draw(st.sampled_from([("", ""), ("    ", "  "), ("  ", "        ")]))
    base_text, base_at = _render(statements, draw(st.lists(st.sampled_from(LAYOUTS), min_size=n, max_size=n)),
                                 indent_base, "'")
    head_text, head_at = _render(statements, draw(st.lists(st.sampled_from(LAYOUTS), min_size=n, max_size=n)),
                                 indent_head, draw(st.sampled_from(["'", '"'])))
    picks = draw(st.lists(st.tuples(st.integers(0, len(base_at) - 1), st.sampled_from(["R1", "R2"]),
                                    st.sampled_from(["a", "b `x`", "c"])), max_size=8))
    base = [f(rule, base_at[k][0], message, col=base_at[k][1]) for k, rule, message in picks]
    head = [f(rule, head_at[k][0], message, col=head_at[k][1]) for k, rule, message in picks]
    return base_text, head_text, base, head


@settings(max_examples=200, deadline=None, derandomize=True)
@given(reformatted())
def test_a_formatter_like_rewrite_changes_no_verdict(
        case: tuple[str, str, list[Finding], list[Finding]]) -> None:
    base_text, head_text, base, head = case
    verdicts, fixed, _ = classify(build({"a.py": base_text}, {"a.py": head_text}, base, head))
    assert [(v.scope, v.finding.line, v.finding.column) for v in verdicts
            if v.scope != "preexisting"] == [] and fixed == []


def test_two_copies_the_line_map_crossed() -> None:
    """The line map pairs the flat base copy with the flat head copy, which is the other
    statement; each finding's own token says where it went, and the two pairs swap."""
    base_text = "total = compute(alpha)\ntotal = compute(alpha)\n"
    head_text = "total = compute(\n    alpha\n)\ntotal = compute(alpha)\n"
    verdicts, fixed, _ = classify(build({"a.py": base_text}, {"a.py": head_text},
                                        [f("R1", 1, "a"), f("R1", 2, "a")],
                                        [f("R1", 1, "a"), f("R1", 4, "a")]))
    assert [(v.scope, v.finding.line) for v in verdicts] == [("preexisting", 1), ("preexisting", 4)]
    assert fixed == []
