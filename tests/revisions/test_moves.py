"""Where removed lines went in another file: alignment of one file's removed lines with another
file's added lines (`bot.revisions.moves`), on normalised texts as `bot.revisions.diff.norm` gives them."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.revisions.diff import norm
from bot.revisions.moves import Lines, align, moves


def side(key: str, texts: Sequence[str], first: int = 1, numbers: Sequence[int] | None = None) -> Lines:
    """Lines numbered from `first` (or as given), normalised like the classifier does."""
    found = tuple(numbers) if numbers is not None else tuple(range(first, first + len(texts)))
    return Lines(key, found, tuple(norm(t) for t in texts))


FN = ["def moved(payload):", "    value = compute_things(payload)", "", "    return payload_result"]
OTHER = ["def other_one():", "    return undefined_thing + 1"]


def test_a_block_carried_verbatim_maps_every_line_with_its_run() -> None:
    move = align(side("a.py", FN, 10), side("b.py", FN, 3))
    assert move is not None
    assert move.verbatim == {10: (3, 4), 11: (4, 4), 12: (5, 4), 13: (6, 4)}
    assert move.edited == {} and move.carried == 4


def test_a_line_edited_between_verbatim_ones_is_paired_by_position() -> None:
    edited = [*FN[:1], "    renamed = compute_things(payload)", *FN[2:]]
    long_fn = [*FN, "    more_lines_here(payload)"]
    move = align(side("a.py", long_fn), side("b.py", [*edited, long_fn[-1]]))
    assert move is not None
    assert move.edited == {2: 2}
    assert 2 not in move.verbatim and move.verbatim[1] == (1, 1)


def test_an_uneven_gap_pairs_only_similar_lines() -> None:
    base = ["alpha_line = first_call()", "    value = compute_things(payload)", "omega_line = last_call()"]
    head = [base[0], "    value = compute_things(payload, 2)", "    brand_new_statement_here()",
            base[2]]
    move = align(side("a.py", base), side("b.py", head))
    assert move is not None and move.edited == {2: 2}


def test_an_edited_first_line_of_the_block_is_paired_while_similar() -> None:
    edited = ["def moved_renamed(payload):", *FN[1:]]
    move = align(side("a.py", FN), side("b.py", edited))
    assert move is not None and move.edited == {1: 1}
    unrelated = ["class Totally(Different):", *FN[1:]]
    move = align(side("a.py", FN), side("b.py", unrelated))
    assert move is not None and move.edited == {}


def test_blocks_moved_in_another_order_are_all_found() -> None:
    move = align(side("a.py", FN + OTHER), side("b.py", OTHER + FN))
    assert move is not None
    assert move.verbatim[1] == (3, 4) and move.verbatim[5] == (1, 2) and move.carried == 6


def test_a_line_of_another_run_inside_a_gap_is_not_paired_twice() -> None:
    base = ["alpha_line = first_call()", "    value = compute_things(payload)",
            "    width = measure_it(payload)", "omega_line = last_call()",
            "    second = other_things(payload)"]
    head = [base[0], base[4], "    value = compute_things(payload, 2)", base[3]]
    move = align(side("a.py", base), side("b.py", head))
    assert move is not None and move.verbatim[5] == (2, 1)
    assert 2 not in move.edited.values()


def test_short_or_blank_lines_alone_make_no_move() -> None:
    assert align(side("a.py", ["", "pass", "return None"]), side("b.py", ["", "pass", "return None"])) is None


def test_no_edit_pairing_across_lines_that_are_not_neighbours_in_the_file() -> None:
    base = ["alpha_line = first_call()", "    value = compute_things(payload)", "omega_line = last_call()"]
    head = [base[0], "    value = compute_things(payload, 2)", base[2]]
    apart = align(side("a.py", base, numbers=(1, 20, 40)), side("b.py", head))
    assert apart is not None and apart.edited == {}


def test_moves_pairs_only_other_files_that_share_an_informative_line() -> None:
    lost = [side("b.py", FN), side("a.py", OTHER)]
    gained = [side("c.py", FN), side("a.py", OTHER), side("d.py", ["", "pass"]), side("e.py", OTHER)]
    found, skipped = moves(lost, gained)
    assert [(m.source, m.target) for m in found] == [("a.py", "e.py"), ("b.py", "c.py")]
    assert skipped == 0


def test_a_line_many_files_gained_selects_none_of_them() -> None:
    common = "from __future__ import annotations"
    gained = [side(f"g{n}.py", [common, f"fresh_{n} = 1"]) for n in range(9)]
    assert moves([side("a.py", [common, "x = 1"])], gained) == ([], 0)
    assert len(moves([side("a.py", [common, "x = 1"])], gained[:8])[0]) == 8


def test_past_the_budget_pairs_are_counted_not_aligned() -> None:
    lost = [side("a.py", FN), side("b.py", OTHER)]
    gained = [side("c.py", FN), side("d.py", OTHER)]
    found, skipped = moves(lost, gained, budget=len(FN) ** 2)
    assert [(m.source, m.target) for m in found] == [("a.py", "c.py")] and skipped == 1


TEXTS = [*FN, *OTHER, "", "pass", "    return None", "alpha_line = first_call()",
         "    value = compute_things(payload, 2)", "omega_line = last_call()"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(TEXTS), max_size=14), st.lists(st.sampled_from(TEXTS), max_size=14),
       st.integers(1, 30), st.integers(1, 30))
def test_a_move_maps_each_line_at_most_once(a: list[str], b: list[str], at_a: int, at_b: int) -> None:
    lost, gained = side("a.py", a, at_a), side("b.py", b, at_b)
    move = align(lost, gained)
    if move is None:
        return
    heads = [line for line, _ in move.verbatim.values()] + list(move.edited.values())
    assert len(heads) == len(set(heads))  # one base line per head line
    assert not set(move.verbatim) & set(move.edited)
    assert set(move.verbatim) | set(move.edited) <= set(lost.numbers)
    assert set(heads) <= set(gained.numbers)
    for base_line, (head_line, _) in move.verbatim.items():
        assert lost.norms[lost.numbers.index(base_line)] == gained.norms[gained.numbers.index(head_line)]
    assert move == align(lost, gained)


BLOCK = ["def moved(payload):", "    value = compute_things(payload)",
         "    width = measure_it(payload, 10)", "    height = measure_it(payload, 20)",
         "    return value_and_width(value, width)"]


def test_a_line_edited_and_put_elsewhere_in_the_block_is_paired_by_similarity() -> None:
    # `height` moves above `value` and gains an argument on the way.
    head = [BLOCK[0], "    height = measure_it(payload, 20, 3)", *BLOCK[1:3], BLOCK[4]]
    move = align(side("a.py", BLOCK), side("b.py", head))
    assert move is not None
    assert move.edited == {4: 2}
    assert move.verbatim[2] == (3, 2) and move.verbatim[5] == (5, 1)


def test_a_reordered_line_that_no_longer_looks_alike_is_not_paired() -> None:
    head = [BLOCK[0], "    brand_new_statement_here()", *BLOCK[1:3], BLOCK[4]]
    move = align(side("a.py", BLOCK), side("b.py", head))
    assert move is not None and move.edited == {}


def test_no_reordered_pairing_when_the_block_is_not_one_stretch() -> None:
    head = [BLOCK[0], "    height = measure_it(payload, 20, 3)", *BLOCK[1:3], BLOCK[4]]
    apart = align(side("a.py", BLOCK, numbers=(1, 2, 3, 4, 30)), side("b.py", head))
    assert apart is not None and 4 not in apart.edited
