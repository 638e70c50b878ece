"""`review --fix`: the pure edit core, the working-tree edge, and the whole flow per linter."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot import fixes
from bot.cli import main
from bot.model import Edit, Fix, Span
from tests.conftest import GitRepo


def fix(*edits: tuple[int, int, int, int, str], applicability: str = "safe", path: str = "f") -> Fix:
    return Fix("t", tuple(Edit(path, Span(*e[:4]), e[4]) for e in edits), applicability)  # type: ignore[arg-type]


# --- pure core ---------------------------------------------------------------------------------

def test_edits_apply_from_the_end_so_earlier_offsets_hold() -> None:
    text = "import os\nimport sys\nx = 1\n"
    new, applied, skipped = fixes.apply_fixes(text, [fix((1, 1, 2, 1, "")), fix((3, 1, 3, 2, "y"))])
    assert new == "import sys\ny = 1\n"
    assert len(applied) == 2 and skipped == []


def test_overlapping_fix_is_skipped_whole_and_order_does_not_matter() -> None:
    text = "abcdef\n"
    first = fix((1, 1, 1, 4, "X"))
    second = fix((1, 3, 1, 5, "Y"), (1, 6, 1, 7, "Z"))  # overlaps the first: none of it applies
    for order in ([first, second], [second, first]):
        new, applied, skipped = fixes.apply_fixes(text, order)
        assert (new, applied, skipped) == ("Xdef\n", [first], [second])


def test_identical_edits_from_two_findings_apply_once() -> None:
    a, b = fix((1, 1, 1, 2, "Z")), Fix("other", (Edit("f", Span(1, 1, 1, 2), "Z"),))
    new, applied, _ = fixes.apply_fixes("abc\n", [a, b])
    assert new == "Zbc\n" and len(applied) == 2


def test_insertions_at_one_point_conflict_unless_identical() -> None:
    new, _, skipped = fixes.apply_fixes("ab\n", [fix((1, 2, 1, 2, "1")), fix((1, 2, 1, 2, "2"))])
    assert new == "a1b\n" and len(skipped) == 1
    # An insertion at the edge of a replacement is not an overlap.
    new, _, skipped = fixes.apply_fixes("ab\n", [fix((1, 1, 1, 2, "X")), fix((1, 2, 1, 2, "+"))])
    assert new == "X+b\n" and skipped == []


def test_code_points_crlf_and_clamping() -> None:
    text = "é😀x\r\nnext\r\n"
    # Column 3 is "x" in code points (it would be 4 in UTF-16, 7 in bytes).
    assert fixes.apply_fixes(text, [fix((1, 3, 1, 4, "y"))])[0] == "é😀y\r\nnext\r\n"
    # An end column past the line's text stops before the line ending; a line past EOF clamps.
    assert fixes.apply_fixes(text, [fix((1, 3, 1, 99, ""))])[0] == "é😀\r\nnext\r\n"
    assert fixes.apply_fixes(text, [fix((3, 1, 9, 1, "tail\n"))])[0] == text + "tail\n"


def test_line_changes() -> None:
    assert fixes.line_changes("a\nb\nc\n", "a\nB\nc\nd\n") == (2, 1)
    assert fixes.line_changes("a\n", "a\n") == (0, 0)


def test_shown_in_names_the_fixes_a_tools_own_fixer_applied() -> None:
    text = "let a = 1;\nlet b = 2;\nfoo(a, b);\n"
    safe_a, unsafe_b = fix((1, 1, 1, 4, "const")), fix((2, 5, 2, 6, "_b"))
    rewritten = "const a = 1;\nlet b = 2;\nfoo(a, b);\n"
    assert fixes.shown_in(text, rewritten, [safe_a, unsafe_b]) == {0}
    # Two fixes on one line, each alone giving a different line: only together they match.
    both = "const _b = 1;\n"
    one, two = fix((1, 1, 1, 4, "const")), fix((1, 5, 1, 6, "_b"))
    assert fixes.shown_in("let a = 1;\n", both, [one, two]) == {0, 1}
    assert fixes.shown_in("let a = 1;\n", "const _a = 1;\n", [one, two]) == set()
    # A fixer that did something else on the fix's lines does not vouch for it.
    assert fixes.shown_in(text, "var a = 1;\nlet b = 2;\nfoo(a, b);\n", [safe_a]) == set()
    assert fixes.shown_in(text, text, [safe_a, unsafe_b]) == set()


def test_fix_editing_two_files_is_not_applied() -> None:
    two = Fix("t", (Edit("a", Span(1, 1, 1, 1), "x"), Edit("b", Span(1, 1, 1, 1), "y")))
    one = fix((1, 1, 1, 1, "z"), path="a")
    assert fixes.by_file([two, one]) == {"a": [one]}


# --- the working tree ----------------------------------------------------------------------

def test_inside_refuses_escapes(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    (repo / "sub").mkdir(parents=True)
    (repo / "sub" / "ok.py").write_text("x\n")
    (tmp_path / "outside.py").write_text("x\n")
    os.symlink(tmp_path / "outside.py", repo / "link.py")
    assert fixes.inside(repo, "sub/ok.py") == repo / "sub" / "ok.py"
    for bad in ("../outside.py", "/etc/passwd", "link.py", "sub", "missing.py", ".git/config"):
        assert fixes.inside(repo, bad) is None, bad


def _py_repo(repo: GitRepo) -> None:
    repo.commit({"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401", "E711"]\n', "a.py": "x = 1\n"})
    repo.branch("feat")
    repo.commit({"a.py": "import os\nimport sys\n\nx = 1\nif x == None:\n    pass\n",
                 "b.py": "import json\n"})


def test_dirty_file_is_refused_unless_forced(repo: GitRepo, tmp_path: Path) -> None:
    _py_repo(repo)
    (repo.path / "a.py").write_text("import os\nimport sys\n\nx = 2\nif x == None:\n    pass\n")
    args = ["review", "--repo", str(repo.path), "--base", "main", "--cache-dir", str(tmp_path / "c"), "--fix"]
    main(args)
    assert (repo.path / "a.py").read_text().startswith("import os\nimport sys\n")  # untouched
    assert (repo.path / "b.py").read_text() == ""  # clean file fixed
    main([*args, "--force"])
    assert (repo.path / "a.py").read_text() == "\nx = 2\nif x == None:\n    pass\n"


def test_fix_reports_lines_and_what_remains(repo: GitRepo, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    _py_repo(repo)
    (repo.path / "a.py").chmod(0o755)
    repo.commit(message="exec bit")
    code = main(["review", "--repo", str(repo.path), "--base", "main", "--cache-dir", str(tmp_path / "c"),
                 "--fix"])
    err = capsys.readouterr().err
    assert "a.py: +0 -2, 2 fix(es)" in err and "b.py: +0 -1, 1 fix(es)" in err
    assert "1 introduced/changed finding(s) remain" in err  # E711's fix is unsafe
    assert code == 1
    assert os.stat(repo.path / "a.py").st_mode & 0o777 == 0o755  # written in place, mode kept
    assert repo.git("status", "--porcelain").split() == ["M", "a.py", "M", "b.py"]
    main(["review", "--repo", str(repo.path), "--base", "main", "--cache-dir", str(tmp_path / "c"),
          "--fix", "--unsafe-fixes", "--force"])
    assert (repo.path / "a.py").read_text() == "\nx = 1\nif x is None:\n    pass\n"
    assert "0 introduced/changed finding(s) remain" in capsys.readouterr().err


def test_preexisting_findings_are_not_fixed(repo: GitRepo, tmp_path: Path) -> None:
    repo.commit({"pyproject.toml": '[tool.ruff.lint]\nselect = ["F401"]\n', "a.py": "import os\n"})
    repo.branch("feat")
    repo.commit({"a.py": "import os\nimport sys\n"})
    main(["review", "--repo", str(repo.path), "--base", "main", "--cache-dir", str(tmp_path / "c"), "--fix"])
    assert (repo.path / "a.py").read_text() == "import os\n"
