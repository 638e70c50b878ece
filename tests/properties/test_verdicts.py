"""The verdict engine's invariants, on generated texts and findings (the classifier's pure
core, as the pipeline feeds it): a pure shift of lines changes no verdict; base equal to head
introduces nothing; one more identical copy of a finding adds exactly one introduced. That
permuting the tools' output changes nothing is tests/verdicts/test_classify.py's determinism property.

The examples are the same on every run (derandomize), so a CI run never finds a new case by
chance; scripts/deep-properties runs 10,000 of each, drawn afresh (`tests.properties.budget`).
The counterexamples the properties found once are pinned below as plain tests."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from hypothesis import assume, given
from hypothesis import strategies as st

from bot.model import Finding, Span, Verdict
from bot.revisions.diff import LineMap
from bot.verdicts.classify import classify, is_file_level
from tests.properties.budget import examples
from tests.verdicts.test_classify import LINE_POOL, build, f, file_start, lines

MESSAGES = ["a", "b `x`", "b `y`", "c 1"]


@st.composite
def texts_and_findings(draw: st.DrawFn) -> tuple[str, list[Finding]]:
    text = "".join(draw(st.lists(st.sampled_from(LINE_POOL), min_size=1, max_size=12)))
    spec = st.tuples(st.sampled_from(["R1", "R2"]), st.integers(1, len(lines(text))),
                     st.sampled_from(MESSAGES), st.booleans(), st.integers(1, 3))
    found = [file_start(rule, message) if whole and col == 1 else f(rule, line, message, col=col)
             for rule, line, message, whole, col in draw(st.lists(spec, max_size=8))]
    return text, found


def scopes(verdicts: Sequence[Verdict]) -> Counter[str]:
    return Counter(v.scope for v in verdicts)


def shifted(finding: Finding, by: int) -> Finding:
    if is_file_level(finding):
        return finding  # about the whole file: reported at 1:1 wherever its lines are
    s = finding.span
    return replace(finding, span=Span(s.line + by, s.column, s.end_line + by, s.end_column))


def shifted_map(lm: LineMap, by: int) -> LineMap:
    """A line map with `by` unchanged lines above all of it."""
    return LineMap(
        lm.head_count + by,
        {**{n: n for n in range(1, by + 1)}, **{b + by: h + by for b, h in lm.base_to_head.items()}},
        {b + by: h + by for b, h in lm.base_to_head_mod.items()},
        {h + by: status for h, status in lm.status.items()}, [n + by for n in lm.gaps])


@examples(150)
@given(texts_and_findings())
def test_base_equal_to_head_introduces_nothing(side: tuple[str, list[Finding]]) -> None:
    text, found = side
    verdicts, fixed, _ = classify(build({"a.py": text}, {"a.py": text}, found, found))
    assert scopes(verdicts) == Counter({"preexisting": len(found)} if found else {})
    assert fixed == []


@examples(150)
@given(texts_and_findings(), texts_and_findings(), st.integers(1, 5))
def test_a_pure_shift_of_lines_changes_no_verdict(
        base: tuple[str, list[Finding]], head: tuple[str, list[Finding]], by: int) -> None:
    (base_text, base_found), (head_text, head_found) = base, head
    inputs = build({"a.py": base_text}, {"a.py": head_text}, base_found, head_found)
    verdicts, fixed, _ = classify(inputs)
    # The same change with `by` lines of untouched code above it, on both sides, and the same
    # line map shifted: diffed again, the texts may have another copy of a line called the
    # added one (the diff's choice between equals, not the classifier's).
    above = "".join(f"kept_{i} = {i}\n" for i in range(by))
    moved = build({"a.py": above + base_text}, {"a.py": above + head_text},
                  [shifted(x, by) for x in base_found], [shifted(x, by) for x in head_found])
    moved_verdicts, moved_fixed, _ = classify(
        replace(moved, evidence=replace(
            moved.evidence, maps={"a.py": shifted_map(inputs.evidence.maps["a.py"], by)})))
    assert Counter((v.finding, v.scope, v.where) for v in moved_verdicts) == Counter(
        (shifted(v.finding, by), v.scope, v.where) for v in verdicts)
    assert len(moved_fixed) == len(fixed)


@examples(150)
@given(texts_and_findings(), texts_and_findings(), st.data())
def test_one_more_identical_copy_adds_exactly_one_introduced(
        base: tuple[str, list[Finding]], head: tuple[str, list[Finding]], data: st.DataObject
        ) -> None:
    (base_text, base_found), (head_text, head_found) = base, head
    if not head_found:
        return
    copy = data.draw(st.sampled_from(head_found))
    before, fixed, _ = classify(build({"a.py": base_text}, {"a.py": head_text}, base_found,
                                      head_found))
    # A base finding of the rule left without a partner could take the copy (as `changed` or
    # `preexisting`, with one fewer fixed): then the copy is not new.
    assume(not any((x.finding.tool, x.finding.rule) == (copy.tool, copy.rule) for x in fixed))
    after, fixed_after, _ = classify(build({"a.py": base_text}, {"a.py": head_text}, base_found,
                                           [*head_found, copy]))
    # Partners may be dealt anew (an exact copy takes its original from a `changed` finding,
    # which is then new): the count of introduced findings still rises by exactly one.
    assert scopes(after)["introduced"] == scopes(before)["introduced"] + 1
    assert len(fixed_after) == len(fixed)


@examples(150)
@given(texts_and_findings(), st.integers(1, 5))
def test_lines_added_above_leave_every_finding_preexisting(
        side: tuple[str, list[Finding]], by: int) -> None:
    text, found = side
    added = "".join(f"new_{i} = {i}\n" for i in range(by))
    verdicts, fixed, _ = classify(build({"a.py": text}, {"a.py": added + text}, found,
                                        [shifted(x, by) for x in found]))
    assert scopes(verdicts) == Counter({"preexisting": len(found)} if found else {})
    assert fixed == []


# Counterexamples the properties above found (with more examples than they run in CI). Each
# is a case where the block pass (P4b, a unique surrounding block) decides the verdict.
COMPUTED = "value = compute_something()\n"


def test_counterexample_lines_above_turn_introduced_into_changed() -> None:
    base, head = [f("R1", 1, "b `x`")], [f("R1", 1, "a")]
    verdicts, _, _ = classify(build({"a.py": "x = 1\n"}, {"a.py": COMPUTED}, base, head))
    assert [v.scope for v in verdicts] == ["introduced"]
    above = "kept_0 = 0\nkept_1 = 1\n"
    moved, _, _ = classify(build({"a.py": above + "x = 1\n"}, {"a.py": above + COMPUTED},
                                 [shifted(x, 2) for x in base], [shifted(x, 2) for x in head]))
    # P4b pairs a unique block's findings only when they say the same kind of thing.
    assert [v.scope for v in moved] == ["introduced"]


def test_counterexample_a_copy_unpairs_its_original() -> None:
    base_text = COMPUTED + "x = 1\n" + COMPUTED + COMPUTED
    base = [f("R1", 1, "a"), f("R1", 1, "a"), f("R2", 2, "a")]
    head = [f("R2", 2, "a")]
    before, _, _ = classify(build({"a.py": base_text}, {"a.py": COMPUTED * 4}, base, head))
    assert [v.scope for v in before] == ["preexisting"]
    after, _, _ = classify(build({"a.py": base_text}, {"a.py": COMPUTED * 4}, base, head * 2))
    assert sorted(v.scope for v in after) == ["introduced", "preexisting"]


def test_counterexample_a_copy_takes_the_partner_of_another_message() -> None:
    """Two findings of one rule on a rewritten line, between the same neighbours: a copy of
    one of them must not stand in the way of the other's pairing."""
    base_text = COMPUTED * 2 + "x = 1\n\n"
    base = [f("R1", 3, "b `x`"), f("R1", 3, "c 1")]
    head = [f("R1", 3, "c 1"), f("R1", 3, "b `x`")]
    after, fixed, _ = classify(build({"a.py": base_text}, {"a.py": COMPUTED * 2 + "    pass\n"},
                                     base, [*head, head[1]]))
    assert sorted(v.scope for v in after) == ["introduced", "preexisting", "preexisting"]
    assert not fixed


def test_counterexample_a_shift_pairs_a_line_at_the_top_of_the_file() -> None:
    """A finding on a line rewritten at the very top of a file, between the file's start and
    the same line below on both sides: one more line above gave it two neighbours, enough for
    the block pass, and turned it from introduced into preexisting."""
    base, head = [f("R1", 1, "a")], [f("R1", 1, "a")]
    base_text, head_text = "x = 1\nif x == None:\n", "if x == None:\nif x == None:\n"
    verdicts, fixed, _ = classify(build({"a.py": base_text}, {"a.py": head_text}, base, head))
    above = "kept_0 = 0\n"
    moved, moved_fixed, _ = classify(build(
        {"a.py": above + base_text}, {"a.py": above + head_text},
        [shifted(x, 1) for x in base], [shifted(x, 1) for x in head]))
    assert [v.scope for v in moved] == [v.scope for v in verdicts]
    assert len(moved_fixed) == len(fixed)
