"""The verdict invariants of the edits a change is made of, on generated Python modules: lines
added anywhere, definitions reordered, a definition duplicated, moved into another file or
renamed, a file renamed, formatting and moving in one commit, and these together. Each says
exactly which findings may change verdict: none, or the ones the edit really made (those of a
copy, those of a new function).

Each property runs twice: on the pure classifier with each flagged statement's known finding
and difflib's line map, and on the real ruff's findings with the real git diff's line map
(ruff reads the module from stdin: a few milliseconds). The formatting ones need the real
formatter and run only on ruff."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.model import Verdict
from bot.verdicts.classify import classify
from tests.properties.budget import examples
from tests.properties.pymodules import (
    NAMES,
    POOL,
    Function,
    Module,
    functions,
    inputs,
    modules,
    ruff_format,
)

PURE, REAL = 100, 12  # examples of each property in the test suite: pure, over the real ruff
Files = Mapping[str, str]
Expected = Mapping[str, Collection[int]]  # path -> lines whose findings the edit made


def verdicts(base: Files, head: Files, real: bool, pairs: Mapping[str, str | None] | None = None
             ) -> tuple[list[Verdict], list[Verdict]]:
    found, fixed, _ = classify(inputs(base, head, real, pairs))
    return found, fixed


def assert_made_exactly(base: Files, head: Files, real: bool, made: Expected | None = None,
                        pairs: Mapping[str, str | None] | None = None) -> None:
    """Every head finding is preexisting but those on the lines the edit made, which are
    introduced; nothing is fixed."""
    found, fixed = verdicts(base, head, real, pairs)
    made = made or {}
    got = sorted((v.finding.path, v.finding.line, v.finding.rule, v.scope) for v in found)
    want = sorted((v.finding.path, v.finding.line, v.finding.rule,
                   "introduced" if v.finding.line in made.get(v.finding.path, ()) else "preexisting")
                  for v in found)
    assert got == want
    assert [(v.finding.path, v.finding.line, v.finding.rule) for v in fixed] == []


def both(prop: Callable[[Any, bool], None], strategy: st.SearchStrategy[Any]
         ) -> tuple[Callable[..., None], Callable[..., None]]:
    """The property on synthetic findings and on the real ruff's, each with its budget."""

    @examples(PURE)
    @given(strategy)
    def pure(case: object) -> None:
        prop(case, False)

    @examples(REAL)
    @given(strategy)
    def real(case: object) -> None:
        prop(case, True)

    return pure, real


def renamed(f: Function, name: str) -> Function:
    return Function(name, f.body, f.result)


def text(functions_: Sequence[Function], added: Mapping[int, int] | None = None) -> str:
    return Module(tuple(functions_), dict(added or {})).text()


# --- lines added anywhere ---------------------------------------------------------------------

@st.composite
def with_lines_added(draw: st.DrawFn) -> tuple[Module, Module]:
    base = draw(modules())
    places = st.sampled_from(base.places())
    added = draw(st.dictionaries(places, st.integers(1, 3), min_size=1, max_size=4))
    return base, Module(base.functions, added)


def lines_added_anywhere(case: tuple[Module, Module], real: bool) -> None:
    base, head = case
    assert_made_exactly({"a.py": base.text()}, {"a.py": head.text()}, real)


test_lines_added_anywhere_change_no_verdict, test_real_lines_added_anywhere_change_no_verdict = \
    both(lines_added_anywhere, with_lines_added())


# --- definitions reordered --------------------------------------------------------------------

@st.composite
def reordered(draw: st.DrawFn) -> tuple[Module, Module]:
    base = draw(modules(max_size=6))
    return base, Module(tuple(draw(st.permutations(base.functions))))


def definitions_reordered(case: tuple[Module, Module], real: bool) -> None:
    base, head = case
    assert_made_exactly({"a.py": base.text()}, {"a.py": head.text()}, real)


test_definitions_reordered_change_no_verdict, test_real_definitions_reordered_change_no_verdict = \
    both(definitions_reordered, reordered())


# --- a definition duplicated --------------------------------------------------------------------

@st.composite
def duplicated(draw: st.DrawFn) -> tuple[Module, Module, str]:
    base = draw(modules())
    original = draw(st.sampled_from(base.functions))
    copy = renamed(original, f"copy_of_{original.name}")
    at = draw(st.integers(0, len(base.functions)))
    return base, Module((*base.functions[:at], copy, *base.functions[at:])), copy.name


def definition_duplicated(case: tuple[Module, Module, str], real: bool) -> None:
    base, head, copy = case
    assert_made_exactly({"a.py": base.text()}, {"a.py": head.text()}, real,
                        {"a.py": head.where(copy)})


test_a_duplicated_definition_introduces_its_copy_findings, \
    test_real_a_duplicated_definition_introduces_its_copy_findings = both(definition_duplicated, duplicated())


# --- a definition moved into another file ------------------------------------------------------

@st.composite
def moved_between_files(draw: st.DrawFn) -> tuple[Module, Module, Module, Module]:
    a = draw(modules(min_size=1, max_size=4, names=NAMES[:4]))
    b = draw(modules(min_size=0, max_size=4, names=NAMES[4:]))
    moved = draw(st.integers(0, len(a.functions) - 1))
    at = draw(st.integers(0, len(b.functions)))
    head_b = (*b.functions[:at], a.functions[moved], *b.functions[at:])
    return a, b, Module(a.functions[:moved] + a.functions[moved + 1:]), Module(head_b)


def definition_moved_to_another_file(case: tuple[Module, Module, Module, Module], real: bool
                                     ) -> None:
    a, b, head_a, head_b = case
    assert_made_exactly({"a.py": a.text(), "b.py": b.text()},
                        {"a.py": head_a.text(), "b.py": head_b.text()}, real)


test_a_definition_moved_to_another_file_changes_no_verdict, \
    test_real_a_definition_moved_to_another_file_changes_no_verdict = \
    both(definition_moved_to_another_file, moved_between_files())


# --- renaming: a definition, a file -------------------------------------------------------------

@st.composite
def renames(draw: st.DrawFn) -> tuple[Module, Module, bool]:
    base = draw(modules())
    which = draw(st.integers(0, len(base.functions) - 1))
    head = list(base.functions)
    head[which] = renamed(head[which], f"{head[which].name}_renamed")
    if draw(st.booleans()):
        head = draw(st.permutations(head))
    return base, Module(tuple(head)), draw(st.booleans())


def renamed_definition_or_file(case: tuple[Module, Module, bool], real: bool) -> None:
    base, head, move_file = case
    path = "renamed.py" if move_file else "a.py"
    assert_made_exactly({"a.py": base.text()}, {path: head.text()}, real,
                        pairs={path: "a.py"})


test_a_renamed_definition_or_file_changes_no_verdict, \
    test_real_a_renamed_definition_or_file_changes_no_verdict = both(renamed_definition_or_file, renames())


# --- formatting and moving in one commit (the real formatter) -----------------------------------

@st.composite
def formatted_and_moved(draw: st.DrawFn) -> tuple[Files, Files, Expected]:
    a = draw(modules(min_size=1, max_size=4, names=NAMES[:4]))
    b = draw(modules(min_size=1, max_size=3, names=NAMES[4:]))
    head_a, head_b = list(draw(st.permutations(a.functions))), list(b.functions)
    if draw(st.booleans()):
        head_b.insert(draw(st.integers(0, len(head_b))), head_a.pop(
            draw(st.integers(0, len(head_a) - 1))))
    width = draw(st.sampled_from([20, 30, 88]))
    return ({"a.py": a.text(), "b.py": b.text()},
            {"a.py": ruff_format(text(head_a), width), "b.py": ruff_format(text(head_b), width)},
            {})


@examples(REAL)
@given(formatted_and_moved())
def test_real_formatted_and_moved_in_one_commit_changes_no_verdict(
        case: tuple[Files, Files, Expected]) -> None:
    base, head, made = case
    assert_made_exactly(base, head, True, made)


# --- all of them at once --------------------------------------------------------------------------

FLAGGED = [k for k, s in enumerate(POOL) if s.rule]


@st.composite
def combined(draw: st.DrawFn) -> tuple[Module, Module, tuple[str, ...]]:
    """Reordered, one renamed, one duplicated, one new flagged function, lines added (not in
    the renamed one): the copy's and the new function's findings are the ones the change made."""
    base = draw(modules(min_size=2, max_size=5))
    head = list(draw(st.permutations(base.functions)))
    which = draw(st.integers(0, len(head) - 1))
    head[which] = renamed(head[which], f"{head[which].name}_renamed")
    renamed_one = head[which].name
    original = draw(st.sampled_from(head))
    head.insert(draw(st.integers(0, len(head))), renamed(original, "the_copy"))
    new = draw(functions("brand_new"))
    new = Function(new.name, ((draw(st.sampled_from(FLAGGED)), 0), *new.body), new.result)
    head.insert(draw(st.integers(0, len(head))), new)
    # Not in the renamed one: a short function renamed and edited at once is a new one (see
    # MIN_RENAMED_AND_EDITED in bot.verdicts.classify).
    places = Module(tuple(head)).places(outside=renamed_one)
    added = draw(st.dictionaries(st.sampled_from(places), st.integers(1, 2), max_size=3))
    return base, Module(tuple(head), added), ("the_copy", "brand_new")


def all_at_once(case: tuple[Module, Module, tuple[str, ...]], real: bool) -> None:
    """A renamed function and the copy of it are alike but for their names: which of the two
    is the copy no one can tell, and neither can the classifier. So the property is: the
    introduced findings are as many as the copy's and the new function's, all in functions
    under names the base does not have; every finding of a function that kept its name is
    preexisting; nothing is fixed."""
    base, head, made = case
    found, fixed = verdicts({"a.py": base.text()}, {"a.py": head.text()}, real)
    kept = {f.name for f in base.functions}
    new_names = [f.name for f in head.functions if f.name not in kept]
    anywhere_new = {n for name in new_names for n in head.where(name)}
    introduced = [v.finding.line for v in found if v.scope == "introduced"]
    made_lines = {n for name in made for n in head.where(name)}
    assert len(introduced) == sum(1 for v in found if v.finding.line in made_lines)
    assert set(introduced) <= anywhere_new
    assert all(v.scope == "preexisting" for v in found if v.finding.line not in anywhere_new)
    assert [(v.finding.line, v.finding.rule) for v in fixed] == []


test_all_edits_at_once_introduce_exactly_what_they_made, \
    test_real_all_edits_at_once_introduce_exactly_what_they_made = both(all_at_once, combined())


@pytest.mark.parametrize("width", [20, 88])
def test_the_real_formatter_keeps_the_pool_flagged(width: int) -> None:
    """The formatting property would say nothing if formatting dropped the findings."""
    from tests.properties.pymodules import ruff

    module = text([Function("alpha", tuple((k, 1) for k in FLAGGED), 0)])
    assert sorted(f.rule for f in ruff("a.py", ruff_format(module, width))) == sorted(
        f.rule for f in ruff("a.py", module))
    assert len(ruff("a.py", module)) >= len(FLAGGED)
