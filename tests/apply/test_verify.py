"""Verification: the plan applied in memory to the head's blobs, every file checked."""

from __future__ import annotations

from pathlib import Path

from bot.apply.plan import Plan, plan_id
from bot.apply.verify import apply_edits, parse_problem, preview, verify
from bot.model import Edit, Span
from tests.conftest import GitRepo


def edit(path: str, line: int, col: int, end_line: int, end_col: int, new: str) -> Edit:
    return Edit(path, Span(line, col, end_line, end_col), new)


def test_edits_apply_back_to_front_and_overlaps_are_refused() -> None:
    text = "import os\nx = 1\r\ny = 2\n"
    assert apply_edits(text, [edit("a", 1, 1, 2, 1, ""), edit("a", 3, 1, 3, 2, "z")]) == "x = 1\r\nz = 2\n"
    # An insertion at the edge of a replacement is fine; inside it, or two at one point, not.
    assert apply_edits("ab\n", [edit("a", 1, 1, 1, 2, "X"), edit("a", 1, 2, 1, 2, "+")]) == "X+b\n"
    assert apply_edits("abc\n", [edit("a", 1, 1, 1, 3, "X"), edit("a", 1, 2, 1, 2, "+")]) is None
    assert apply_edits("ab\n", [edit("a", 1, 2, 1, 2, "1"), edit("a", 1, 2, 1, 2, "2")]) is None


def test_parse_checks_per_kind_of_file() -> None:
    assert parse_problem("a.py", "x = 1\n", "x = (1\n") == (
        "the rewritten file does not parse as python (syntax error at line 1)")
    assert parse_problem("a.py", "x = 1\n", "x = 2\n") == ""
    # A head that was already broken may stay as broken, not get worse.
    assert parse_problem("a.py", "x = (\ny = 1\n", "x = (\ny = 2\n") == ""
    assert parse_problem("a.ts", "let a = 1;\n", "let a = ;\n").startswith(
        "the rewritten file does not parse as typescript")
    broken = "the rewritten file no longer parses ("
    assert parse_problem("a.json", '{"a": 1}', '{"a": 1,}').startswith(broken)
    assert parse_problem("a.toml", "a = 1\n", "a = \n").startswith(broken)
    assert parse_problem("a.yml", "a: [1]\n", "a: [1\n").startswith(broken)
    assert parse_problem("a.json", "{", "{}") == ""
    assert parse_problem("page.vue", "<x>", "<y") is None  # no parser: text only


def test_verify_refuses_what_cannot_be_committed(repo: GitRepo) -> None:
    (repo.path / "target.py").write_text("x = 1\n")
    (repo.path / "link.py").symlink_to("target.py")
    repo.write({"ok.py": "import os\nx = 1\n", "bad.py": "x = 1\n", "latin.py": b"s = '\xe9'\n",
                "page.vue": "<p>hi</p>\n", ".github/workflows/ci.yml": "on: push\n"})
    head = repo.commit()
    edits = (edit("ok.py", 1, 1, 2, 1, ""), edit("bad.py", 1, 5, 1, 6, "(1"),
             edit("link.py", 1, 1, 1, 1, "#"), edit("latin.py", 1, 1, 1, 1, "#"),
             edit("page.vue", 1, 4, 1, 6, "hello"), edit(".github/workflows/ci.yml", 1, 1, 1, 1, "#"))
    files = tuple(sorted({e.path for e in edits}))
    checked = verify(repo.path, Plan(plan_id(head, edits), head, edits, files, ()))
    assert not checked.ok
    assert sorted(checked.problems) == [
        ".github/workflows/ci.yml: files under .github/workflows/ are never changed by the bot",
        "bad.py: the rewritten file does not parse as python (syntax error at line 1)",
        f"latin.py: not UTF-8 text at {head[:12]}",
        f"link.py: not a regular file at {head[:12]}",
    ]
    assert checked.files["ok.py"] == ("100644", b"x = 1\n")
    assert checked.files["page.vue"] == ("100644", b"<p>hello</p>\n") and checked.unchecked == ("page.vue",)
    # The working tree plays no part: the blobs at the head are what is edited.
    (repo.path / "ok.py").write_text("changed\n")
    again = verify(repo.path, Plan(plan_id(head, edits[:1]), head, edits[:1], ("ok.py",), ()))
    assert again.ok and again.files == {"ok.py": ("100644", b"x = 1\n")}


def test_verify_keeps_the_executable_bit(repo: GitRepo, tmp_path: Path) -> None:
    repo.write({"run.py": "import os\nprint(1)\n"})
    (repo.path / "run.py").chmod(0o755)
    head = repo.commit()
    edits = (edit("run.py", 1, 1, 2, 1, ""),)
    checked = verify(repo.path, Plan(plan_id(head, edits), head, edits, ("run.py",), ()))
    assert checked.files == {"run.py": ("100755", b"print(1)\n")}


def test_preview_is_a_unified_diff_of_the_plan(repo: GitRepo) -> None:
    head = repo.commit({"a.py": "import os\nx = 1\n", "b.py": "y = 2"})
    edits = (edit("a.py", 1, 1, 2, 1, ""), edit("b.py", 1, 5, 1, 6, "3"))
    plan = Plan(plan_id(head, edits), head, edits, ("a.py", "b.py"), ())
    checked = verify(repo.path, plan)
    assert preview(repo.path, plan, checked) == (
        "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1 @@\n-import os\n x = 1\n"
        "--- a/b.py\n+++ b/b.py\n@@ -1 +1 @@\n-y = 2\n\\ No newline at end of file\n"
        "+y = 3\n\\ No newline at end of file\n")
    assert preview(repo.path, plan, checked, max_lines=3) == (
        "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1 @@\n... 9 more diff lines\n")
