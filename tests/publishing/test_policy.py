"""Where findings go: inline only on lines GitHub accepts, file-level otherwise, caps, summary."""

from __future__ import annotations

from bot.forges.base import Posted, State
from bot.forges.github.change import DIALECT
from bot.model import Severity, Verdict
from bot.publishing.placement import Item
from bot.publishing.policy import Policy, cap, place, within_diff
from bot.publishing.summary import status_annotations
from bot.publishing.sync import reconcile
from bot.render.markdown import parse_marker
from bot.render.suggestion import NoSuggestion, split_lines
from tests.forges.builders import change, finding, result, verdict

TEXT = split_lines("".join(f"v{n} = {n}\n" for n in range(1, 41)))


def placed(found: list[Verdict]) -> tuple[Item, ...]:
    """`found` placed for GitHub in a file whose lines 1-10 are in the diff."""
    return place(result("c" * 40, found, [change("a.py", range(1, 11))]), {"a.py": TEXT},
                 dialect=DIALECT)


def test_placement() -> None:
    found = [
        verdict(finding("a.py", 3), "in-hunk"),
        verdict(finding("a.py", 30), "outside-hunk"),
        verdict(finding("gone.py", 1), "not-in-diff"),
        verdict(finding("a.py", 5), "elsewhere", where="elsewhere"),
        verdict(finding("a.py", 6), "old", scope="preexisting"),
        verdict(finding("a.py", 4, fix=((4, 1, 5, 1, ""), (12, 1, 13, 1, ""))), "fix-too-wide"),
        verdict(finding("a.py", 7, end_line=9), "multi"),
    ]
    items = {i.key: i for i in placed(found)}
    assert set(items) == {"in-hunk", "outside-hunk", "not-in-diff", "fix-too-wide", "multi"}
    assert (items["in-hunk"].kind, items["in-hunk"].line, items["in-hunk"].start_line) == ("inline", 3, None)
    assert items["outside-hunk"].kind == "file"
    assert "Line 30 is outside" in items["outside-hunk"].body.text  # type: ignore[union-attr]
    assert items["not-in-diff"].kind == "summary"
    assert items["fix-too-wide"].kind == "inline"
    assert "```suggestion" not in items["fix-too-wide"].body.text  # type: ignore[union-attr]
    assert (items["multi"].start_line, items["multi"].line) == (7, 9)


def test_worst_first_and_duplicate_fingerprints_get_distinct_keys() -> None:
    found = [verdict(finding("a.py", 2, severity=Severity.INFO), "same"),
             verdict(finding("a.py", 3), "same")]
    items = placed(found)
    assert [(i.key, i.verdict.finding.line) for i in items] == [("same", 3), ("same~2", 2)]


def test_caps_bound_the_comments_on_the_pr() -> None:
    found = [verdict(finding("a.py", n), f"fp{n}") for n in range(1, 8)]
    items = placed(found)
    capped = cap(items, frozenset({"fp1", "fp2"}), Policy(max_inline=3))
    assert [i.kind for i in capped] == ["inline"] * 3 + ["summary"] * 4  # 2 earlier + 1 new
    assert "over the cap of 3" in capped[-1].reason
    later = cap(items, frozenset({"fp6", "fp7"}), Policy(max_inline=1))  # posted stay inline
    assert [i.kind for i in later] == ["inline"] + ["summary"] * 4 + ["inline"] * 2


def test_reconcile_edits_only_changed_text_and_resolves_fixed() -> None:
    found = [verdict(finding("a.py", n), f"fp{n}") for n in (1, 2)]
    items = placed(found)
    marker = parse_marker(items[0].body.text)  # type: ignore[union-attr]
    assert marker is not None
    state = State("c" * 40, True, (
        Posted("1", "fp1", marker.digest, "a.py", "T1"),
        Posted("2", "fp2", "0" * 16, "a.py", "T2"),
        Posted("3", "fp3", "x", "a.py", "T3"),
        Posted("4", "fp4", "x", "a.py", "T4", resolved=True),
    ))
    plan = reconcile(items, state, Policy())
    assert [p.id for p, _ in plan.edits] == ["2"]
    assert [p.id for p in plan.resolve] == ["3"]
    assert plan.new == () and plan.kept == {"fp1", "fp2"}


def test_check_annotations_skip_preexisting() -> None:
    found = [verdict(finding("a.py", 1), "a"), verdict(finding("a.py", 2), "b", scope="preexisting"),
             verdict(finding("a.py", 3), "c", scope="changed")]
    notes = status_annotations(result("c" * 40, found, []))
    assert [(a.start_line, a.severity) for a in notes] == [(1, Severity.ERROR), (3, Severity.ERROR)]


def test_display_only_fix_is_described_not_suggested() -> None:
    found = [verdict(finding("a.py", 2, fix=((2, 1, 2, 3, "x"),)), "fp")]
    res = result("c" * 40, found, [change("a.py", range(1, 11))])
    object.__setattr__(res.findings[0].finding.fix, "applicability", "display")
    [item] = place(res, {"a.py": TEXT}, dialect=DIALECT)
    assert "not offered here" in item.body.text  # type: ignore[union-attr]
    assert isinstance(NoSuggestion("x"), NoSuggestion)


def test_a_line_the_forge_does_not_show_is_not_commented_inline() -> None:
    """The forge's diff, not the artifact's, says where a comment may sit: hunks are cut to
    it, and a file it does not show at all has its findings in the summary."""
    found = [verdict(finding("a.py", 3), "shown"), verdict(finding("a.py", 4), "not-shown"),
             verdict(finding("b.py", 1), "file-not-shown")]
    claimed = result("c" * 40, found, [change("a.py", range(1, 11)), change("b.py", [1])])
    cut = within_diff(claimed, {"a.py": frozenset({3})})
    assert [(c.path, c.hunk_lines) for c in cut.changes] == [("a.py", frozenset({3}))]
    items = {i.key: i for i in place(cut, {"a.py": TEXT}, dialect=DIALECT)}
    assert items["shown"].kind == "inline"
    assert items["not-shown"].kind == "file"
    assert items["file-not-shown"].kind == "summary"
