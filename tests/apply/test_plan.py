"""The staged plan: its sources and their order, overlaps, the id, and how the summary shows it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from bot.apply.plan import Plan, build, plan_for, plan_id, render
from bot.apply.sources import Group, StagedRewrite, clean
from bot.model import Edit, Span
from tests.apply.conftest import Scenario, git

STR_TO_REPR = StagedRewrite("str($A)", "repr($A)", None, "alice")


def edit(path: str, line: int, col: int, end_line: int, end_col: int, new: str) -> Edit:
    return Edit(path, Span(line, col, end_line, end_col), new)


def test_apply_takes_rules_on_changed_lines_staged_rewrites_and_safe_fixes(pr_template: Scenario) -> None:
    plan = plan_for(pr_template.checkout, pr_template.result, (STR_TO_REPR,), "apply")
    assert plan.head == pr_template.head and plan.files == ("app.py", "util.py")
    # print('kept') is an old line: its rule fix is not part of the plan; E711's fix is unsafe.
    assert plan.edits == (edit("app.py", 2, 1, 3, 1, ""), edit("app.py", 12, 5, 12, 13, "log.info(x)"),
                          edit("util.py", 1, 1, 2, 1, ""), edit("util.py", 5, 12, 5, 18, "repr(v)"))
    assert plan.sources == ("ast-grep rule no-print: 1 edit", "/ast-edit by alice: 1 edit",
                            "ruff F401 (safe): 2 edits")
    assert len(plan.id) == 12 and int(plan.id, 16) >= 0


def test_fix_takes_only_the_safe_linter_fixes(pr_template: Scenario) -> None:
    plan = plan_for(pr_template.checkout, pr_template.result, (STR_TO_REPR,), "fix")
    assert plan.edits == (edit("app.py", 2, 1, 3, 1, ""), edit("util.py", 1, 1, 2, 1, ""))
    assert plan.sources == ("ruff F401 (safe): 2 edits",)


def test_files_come_from_the_head_commit_not_the_working_tree(pr_template: Scenario, tmp_path: Path) -> None:
    pr = pr_template.copy(tmp_path / "pr")
    git(pr.checkout, "checkout", "-q", "-f", pr.head)
    (pr.checkout / "util.py").write_text("x = str(1)\n")  # a working tree that says otherwise
    plan = plan_for(pr.checkout, pr.result, (STR_TO_REPR,), "apply")
    assert plan == plan_for(pr_template.checkout, pr_template.result, (STR_TO_REPR,), "apply")


def test_overlaps_go_to_the_earlier_source_and_are_listed(pr_template: Scenario) -> None:
    echo = StagedRewrite("print($A)", "echo($A)", "python", "bob")
    plan = plan_for(pr_template.checkout, pr_template.result, (echo,), "apply")
    # bob's rewrite of print(x) collides with the rule's fix, which comes first; his rewrite
    # of print('kept') (not a line the rule's fix is taken on) stays.
    assert edit("app.py", 12, 5, 12, 13, "log.info(x)") in plan.edits
    assert edit("app.py", 8, 5, 8, 18, "echo('kept')") in plan.edits
    assert plan.sources == ("ast-grep rule no-print: 1 edit", "/ast-edit by bob: 1 edit",
                            "ruff F401 (safe): 2 edits",
                            "dropped: /ast-edit by bob at app.py:12:5: "
                            "overlaps an edit of ast-grep rule no-print")


def test_a_staged_rewrite_that_cannot_compile_is_listed(pr_template: Scenario) -> None:
    plan = plan_for(pr_template.checkout, pr_template.result,
                    (StagedRewrite("str($A)", "repr($B)", None, "dan"),
                     StagedRewrite("x", "y", "cobol", "dan")), "apply")
    assert plan.sources[1:3] == ("/ast-edit by dan: 0 edits", "/ast-edit by dan (#2): 0 edits")
    assert any(s.startswith("/ast-edit by dan: not staged: rewrite uses $B") for s in plan.sources)
    assert any(s.startswith("/ast-edit by dan (#2): not staged: unknown language 'cobol'")
               for s in plan.sources)


def test_the_id_is_the_same_for_the_same_head_and_edits_only(pr_template: Scenario, tmp_path: Path) -> None:
    first = plan_for(pr_template.checkout, pr_template.result, (STR_TO_REPR,), "apply")
    assert plan_for(pr_template.checkout, pr_template.result, (STR_TO_REPR,), "apply").id == first.id
    assert plan_for(pr_template.checkout, pr_template.result, (), "apply").id != first.id  # edits differ
    # A new head with the same files: the same edits, another plan.
    pr = pr_template.copy(tmp_path / "pr")
    (pr.dev / "README").write_text("docs\n")
    git(pr.dev, "add", "README")
    git(pr.dev, "commit", "-q", "-m", "docs")
    git(pr.dev, "push", "-q", "origin", "feat")
    git(pr.checkout, "fetch", "-q", "origin")
    moved = replace(pr.result, head=git(pr.checkout, "rev-parse", "origin/feat"))
    again = plan_for(pr.checkout, moved, (STR_TO_REPR,), "apply")
    assert again.edits == first.edits and again.id != first.id
    # Pure: the order of the edits does not matter, their content does.
    edits = list(first.edits)
    assert plan_id(first.head, edits[::-1]) == first.id
    assert plan_id(first.head, [*edits[:-1], replace(edits[-1], new_text="ascii(v)")]) != first.id


def test_build_keeps_identical_edits_once_and_drops_no_ops() -> None:
    texts = {"a.py": "import os\nx = 1\n"}
    same = (edit("a.py", 1, 1, 2, 1, ""),)
    groups = [Group("ruff F401 (safe)", same), Group("ruff F401 (safe)", same),
              Group("ruff X (safe)", (edit("a.py", 2, 1, 2, 2, "x"),)),  # replaces x with x
              Group("ruff Y (safe)", (edit("b.py", 1, 1, 1, 1, "#"),))]  # not at the head
    plan = build("f" * 40, [], groups, texts)
    assert plan.edits == same and plan.files == ("a.py",)
    assert plan.sources == ("ruff F401 (safe): 1 edit", "ruff X (safe): 0 edits", "ruff Y (safe): 0 edits",
                            "dropped: ruff Y (safe) at b.py:1:1: "
                            "b.py is not a regular UTF-8 text file at the head")


def test_build_drops_a_fix_whole_when_one_of_its_edits_overlaps() -> None:
    texts = {"a.py": "abcdef\n"}
    first = Group("t A (safe)", (edit("a.py", 1, 1, 1, 4, "X"),))
    second = Group("t B (safe)", (edit("a.py", 1, 6, 1, 7, "Z"), edit("a.py", 1, 3, 1, 5, "Y")))
    plan = build("0" * 40, [], [first, second], texts)
    assert plan.edits == first.edits
    assert plan.sources[-1] == "dropped: t B (safe) at a.py:1:3: overlaps an edit of t A (safe)"
    # Spans past the end of a line are the same edit as the clamped one, id included.
    wide = build("0" * 40, [], [Group("t A (safe)", (edit("a.py", 1, 1, 1, 99, ""),))], texts)
    narrow = build("0" * 40, [], [Group("t A (safe)", (edit("a.py", 1, 1, 1, 7, ""),))], texts)
    assert wide == narrow


def test_clean_paths_only() -> None:
    assert clean("src/a.py") and clean(".github/workflows/ci.yml")
    for bad in ("", "/etc/passwd", "../x", "a/../b", "a//b", "./a", "a\\b", ".git/config", "x/.GIT/y", "a\0"):
        assert not clean(bad), bad


def plan(files: tuple[str, ...], n: int = 3) -> Plan:
    edits = tuple(edit(files[k % len(files)], k + 1, 1, k + 1, 1, "#") for k in range(n))
    return Plan(plan_id("a" * 40, edits), "a" * 40, edits, files, ("ruff F401 (safe): 3 edits",))


def test_render_shows_count_files_id_and_how_to_apply() -> None:
    two = plan(("a.py", "b`q.py"))
    shown = render(two)
    assert shown.startswith(f"**Staged plan** `plan {two.id}`: 3 edits in 2 files at `aaaaaaaaaaaa`")
    assert "- `a.py`: 2\n- ``b`q.py``: 1" in shown
    assert "- `ruff F401 (safe): 3 edits`" in shown
    assert shown.endswith("add the label `reviewbot:apply` or comment `/apply`.")
    assert render(plan(("a.py",)), label="bot: go", command="!apply").endswith(
        "add the label `bot: go` or comment `!apply`.")
    blocked = render(plan(("a.py", ".github/workflows/ci.yml")))
    assert "applying it will be refused" in blocked and "/apply" not in blocked
    empty = Plan(plan_id("a" * 40, ()), "a" * 40, (), (), ())
    assert render(empty) == f"Nothing to apply at `aaaaaaaaaaaa` (`plan {empty.id}`)."
