"""The adversarial baseline scenarios (anchors-baseline.md §4), run through the whole pipeline
with the real ruff (and ESLint where a scenario needs severities) on real git repositories."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.model import ReviewResult
from bot.run.pipeline import ReviewOptions, run_review
from tests.conftest import GitRepo, require_tool

RUFF_CONFIG = """\
[tool.ruff]
line-length = 60

[tool.ruff.lint]
select = ["E", "F", "W", "RET"]
"""


@pytest.fixture(autouse=True)
def _tools() -> None:
    require_tool("ruff")


def review(repo: GitRepo, base: str = "main", head: str = "HEAD") -> ReviewResult:
    return run_review(ReviewOptions(repo=repo.path, base=base, head=head))


def table(result: ReviewResult, rule: str | None = None) -> list[tuple[str, str, int, str, str | None]]:
    """(rule, path, line, scope, where) of every head verdict, plus ('fixed' rows)."""
    rows = [(v.finding.rule, v.finding.path, v.finding.line, v.scope, v.where) for v in result.findings]
    rows += [(v.finding.rule, v.finding.path, v.finding.line, "fixed", None) for v in result.fixed]
    return sorted(r for r in rows if rule is None or r[0] == rule)


def start(repo: GitRepo, files: dict[str, str | bytes | None], config: str = RUFF_CONFIG) -> None:
    repo.commit({"pyproject.toml": config, **files}, "base")
    repo.branch("feature")


def filler(n: int, prefix: str = "v") -> str:
    return "".join(f"{prefix}{i} = {i}\n" for i in range(n))


UNUSED = "def f():\n    unused = compute()\n    return 1\n"


def test_s1_lines_inserted_above(repo: GitRepo) -> None:
    start(repo, {"a.py": "compute = int\n\n\n" + UNUSED})
    repo.commit({"a.py": "compute = int\n" + filler(50) + "\n\n" + UNUSED})
    assert table(review(repo), "F841") == [("F841", "a.py", 55, "preexisting", None)]


def test_s2_lines_deleted_above(repo: GitRepo) -> None:
    start(repo, {"a.py": "compute = int\n" + filler(50) + "\n\n" + UNUSED})
    repo.commit({"a.py": "compute = int\n\n\n" + UNUSED})
    assert table(review(repo), "F841") == [("F841", "a.py", 5, "preexisting", None)]


def test_s3_function_moved_within_file(repo: GitRepo) -> None:
    body = "def g():\n    return 2\n"
    start(repo, {"a.py": "compute = int\n\n\n" + UNUSED + "\n\n" + body + filler(30)})
    repo.commit({"a.py": "compute = int\n\n\n" + body + filler(30) + "\n\n" + UNUSED})
    rows = table(review(repo), "F841")
    assert [r[3] for r in rows] == ["preexisting"]


def test_s4_function_moved_to_another_changed_file(repo: GitRepo) -> None:
    moved = "def moved():\n    leftover_value = compute()\n    return 1\n"
    start(
        repo,
        {
            "a.py": "compute = int\n\n\n" + moved + "\n\ndef stay():\n    return 2\n",
            "b.py": "compute = int\n\n\ndef other():\n    return 3\n",
        },
    )
    repo.commit(
        {
            "a.py": "compute = int\n\n\ndef stay():\n    return 2\n",
            "b.py": "compute = int\n\n\ndef other():\n    return 3\n\n\n" + moved,
        }
    )
    result = review(repo)
    assert table(result, "F841") == [("F841", "b.py", 9, "preexisting", None)]
    (v,) = [v for v in result.findings if v.finding.rule == "F841"]
    assert v.base is not None and v.base.path == "a.py"


# --- code moved between changed files, every shape ---------------------------------------------

MOVED = "def moved(payload):\n    leftover_value = compute(payload)\n    if payload == None:\n" \
    "        return 0\n    return payload\n"
OTHER = "def helper(items):\n    total_count = len(items)\n    return undefined_total\n"
HEAD = "compute = int\n\n\n"
STAY = "def stay():\n    return 2\n"


def moved_rows(result: ReviewResult) -> list[tuple[str, str, int, str, str | None]]:
    return [r for r in table(result) if r[0] in ("F841", "E711", "F821")]


def test_move_edited_on_the_way_between_modified_files(repo: GitRepo) -> None:
    """The flagged line edited in the moved block: its finding changed; the untouched one stays;
    a line added inside the block brings a new finding."""
    start(repo, {"a.py": HEAD + MOVED + "\n\n" + STAY, "b.py": HEAD + STAY.replace("stay", "other")})
    edited = MOVED.replace("leftover_value", "renamed_value").replace(
        "    return payload", "    fresh_value = compute(1)\n    return payload")
    repo.commit({"a.py": HEAD + STAY, "b.py": HEAD + STAY.replace("stay", "other") + "\n\n" + edited})
    result = review(repo)
    assert moved_rows(result) == [
        ("E711", "b.py", 10, "preexisting", None),
        ("F841", "b.py", 9, "changed", None),
        ("F841", "b.py", 12, "introduced", "diff"),
    ]
    (changed,) = [v for v in result.findings if v.scope == "changed"]
    assert changed.reasons == ("message-args",) and changed.base is not None
    assert changed.base.path == "a.py" and changed.matched_by == "P7m"


def test_move_with_a_line_edited_and_put_elsewhere_in_the_block(repo: GitRepo) -> None:
    """The flagged line moves below the `if` and gains an argument: its finding came with it."""
    start(repo, {"a.py": HEAD + MOVED + "\n\n" + STAY, "b.py": HEAD + STAY.replace("stay", "other")})
    moved = MOVED.replace("    leftover_value = compute(payload)\n", "").replace(
        "    return payload", "    leftover_value = compute(payload, 2)\n    return payload")
    repo.commit({"a.py": HEAD + STAY, "b.py": HEAD + STAY.replace("stay", "other") + "\n\n" + moved})
    result = review(repo)
    assert moved_rows(result) == [("E711", "b.py", 9, "preexisting", None),
                                  ("F841", "b.py", 11, "preexisting", None)]
    (kept,) = [v for v in result.findings if v.finding.rule == "F841"]
    assert kept.base is not None and kept.base.path == "a.py" and kept.touched


def test_move_out_of_a_deleted_file_into_a_modified_one(repo: GitRepo) -> None:
    start(repo, {"a.py": HEAD + MOVED + "\n\n" + OTHER, "b.py": HEAD + STAY + filler(30)})
    repo.commit({"a.py": None, "b.py": HEAD + STAY + filler(30) + "\n\n" + MOVED})
    assert moved_rows(review(repo)) == [
        ("E711", "b.py", 40, "preexisting", None),
        ("F821", "a.py", 13, "fixed", None),
        ("F841", "a.py", 12, "fixed", None),
        ("F841", "b.py", 39, "preexisting", None),
    ]


def test_move_into_a_new_file_edited_on_the_way(repo: GitRepo) -> None:
    start(repo, {"a.py": HEAD + MOVED + "\n\n" + STAY + filler(30)})
    repo.commit({"a.py": HEAD + STAY + filler(30),
                 "new.py": HEAD + MOVED.replace("leftover_value", "renamed_value")})
    assert moved_rows(review(repo)) == [
        ("E711", "new.py", 6, "preexisting", None),
        ("F841", "new.py", 5, "changed", None),
    ]


def test_moves_of_two_blocks_to_two_files_in_swapped_order(repo: GitRepo) -> None:
    start(repo, {"a.py": HEAD + MOVED + "\n\n" + OTHER + "\n\n" + STAY + filler(30),
                 "b.py": HEAD + "def other():\n    return 3\n"})
    repo.commit({
        "a.py": HEAD + STAY + filler(30),
        "b.py": HEAD + OTHER + "\n\ndef other():\n    return 3\n\n\n" + MOVED,
        "c.py": HEAD + OTHER.replace("helper", "helper_copy"),
    })
    rows = moved_rows(review(repo))
    # OTHER went to b.py whole; the copy in c.py is new.
    assert rows == [
        ("E711", "b.py", 15, "preexisting", None),
        ("F821", "b.py", 6, "preexisting", None),
        ("F821", "c.py", 6, "introduced", "diff"),
        ("F841", "b.py", 5, "preexisting", None),
        ("F841", "b.py", 14, "preexisting", None),
        ("F841", "c.py", 5, "introduced", "diff"),
    ]


def test_move_duplicated_into_two_files_has_one_origin(repo: GitRepo) -> None:
    """Both copies carry the block whole: the first path is the move, the other a new copy."""
    start(repo, {"a.py": HEAD + MOVED + "\n\n" + STAY + filler(30)})
    repo.commit({"a.py": HEAD + STAY + filler(30), "y.py": HEAD + MOVED, "x.py": HEAD + MOVED})
    first, second = review(repo), review(repo)
    assert moved_rows(first) == [
        ("E711", "x.py", 6, "preexisting", None),
        ("E711", "y.py", 6, "introduced", "diff"),
        ("F841", "x.py", 5, "preexisting", None),
        ("F841", "y.py", 5, "introduced", "diff"),
    ]
    assert first.findings == second.findings


def test_move_out_of_a_renamed_file(repo: GitRepo) -> None:
    start(repo, {"old.py": HEAD + MOVED + "\n\n" + STAY + filler(30), "b.py": HEAD + STAY})
    repo.mv("old.py", "new.py")
    repo.commit({"new.py": HEAD + STAY + filler(30), "b.py": HEAD + STAY + "\n\n" + MOVED})
    result = review(repo)
    assert moved_rows(result) == [
        ("E711", "b.py", 10, "preexisting", None),
        ("F841", "b.py", 9, "preexisting", None),
    ]
    assert {v.base.path for v in result.findings if v.base is not None and v.finding.path == "b.py"} \
        == {"old.py"}


def test_eslint_function_moved_between_files_edited_on_the_way(repo: GitRepo) -> None:
    require_tool("eslint")
    config = ('export default [{ files: ["**/*.js"], '
              'rules: { "no-unused-vars": "error", eqeqeq: "error" } }];\n')
    moved = ("export function moved(a, b) {\n  const leftover = a + 1;\n  if (a == b) {\n"
             "    return 0;\n  }\n  return b;\n}\n")
    stay = "export function stay() {\n  return 2;\n}\n"
    start(repo, {"eslint.config.mjs": config, "a.js": moved + "\n" + stay,
                 "b.js": "export const other = 1;\n"}, "")
    repo.commit({"a.js": stay,
                 "b.js": "export const other = 1;\n\n" + moved.replace("leftover", "renamed")})
    result = review(repo)
    assert table(result) == [
        ("eqeqeq", "b.js", 5, "preexisting", None),
        ("no-unused-vars", "b.js", 4, "changed", None),
    ]


def test_mypy_function_moved_between_files_edited_on_the_way(repo: GitRepo) -> None:
    require_tool("mypy")
    moved = ("def moved(flag: bool) -> int:\n    if flag:\n        return \"yes\"\n"
             "    total: int = 0\n    return total\n")
    keep = "def keep() -> int:\n    return 1\n"
    start(repo, {"a.py": keep + "\n\n" + moved, "b.py": "def other() -> int:\n    return 2\n"},
          '[tool.mypy]\nfiles = ["."]\n')
    edited = moved.replace('"yes"', "1.5").replace("    total: int = 0\n",
                                                   "    total: int = 0\n    name: int = \"x\"\n")
    repo.commit({"a.py": keep, "b.py": "def other() -> int:\n    return 2\n\n\n" + edited})
    result = run_review(ReviewOptions(repo=repo.path, base="main", only=("mypy",)))
    assert table(result) == [
        ("assignment", "b.py", 9, "introduced", "diff"),
        ("return-value", "b.py", 7, "changed", None),
    ]
    (changed,) = [v for v in result.findings if v.scope == "changed"]
    assert changed.base is not None and changed.base.path == "a.py" and changed.matched_by == "P7m"


def test_s5_file_renamed_identical(repo: GitRepo) -> None:
    start(repo, {"old.py": "compute = int\n\n\n" + UNUSED})
    repo.mv("old.py", "new.py")
    repo.commit()
    assert table(review(repo), "F841") == [("F841", "new.py", 5, "preexisting", None)]


def test_s6_renamed_and_partly_edited(repo: GitRepo) -> None:
    start(repo, {"old.py": "compute = int\n\n\n" + UNUSED + "\n\n" + filler(10)})
    repo.mv("old.py", "new.py")
    repo.commit({"new.py": "compute = int\n\n\n" + UNUSED + "\n\n" + filler(7) + filler(3, "w")})
    assert table(review(repo), "F841") == [("F841", "new.py", 5, "preexisting", None)]


def test_s7_rewritten_below_rename_threshold_keeps_verbatim_function(repo: GitRepo) -> None:
    keep = "def kept():\n    stale_result = compute()\n    return 1\n"
    start(repo, {"old.py": "compute = int\n\n\n" + keep + filler(40, "a")})
    repo.commit(
        {
            "old.py": None,
            "new.py": "compute = int\n\n\n"
            + keep
            + filler(40, "zz")
            + "\n\ndef fresh():\n    brand_new = compute()\n    return 2\n",
        }
    )
    rows = table(review(repo), "F841")
    assert ("F841", "new.py", 5, "preexisting", None) in rows
    assert ("F841", "new.py", 50, "introduced", "diff") in rows
    assert not [r for r in rows if r[3] == "fixed"]


def test_s8_copy_is_new(repo: GitRepo) -> None:
    start(repo, {"a.py": "compute = int\n\n\n" + UNUSED})
    repo.commit({"copy.py": "compute = int\n\n\n" + UNUSED})
    assert table(review(repo), "F841") == [("F841", "copy.py", 5, "introduced", "diff")]


def test_s9_removed_import_breaks_untouched_line(repo: GitRepo) -> None:
    start(repo, {"a.py": "from os import path\n\n\ndef f():\n    return path.join('a', 'b')\n"})
    repo.commit({"a.py": "\n\ndef f():\n    return path.join('a', 'b')\n"})
    assert table(review(repo), "F821") == [("F821", "a.py", 4, "introduced", "elsewhere")]


def test_s10_last_usage_removed_makes_untouched_import_unused(repo: GitRepo) -> None:
    start(repo, {"a.py": "import os\n\n\ndef f():\n    return os.sep\n"})
    repo.commit({"a.py": "import os\n\n\ndef f():\n    return '/'\n"})
    assert table(review(repo), "F401") == [("F401", "a.py", 1, "introduced", "elsewhere")]


def test_new_finding_on_untouched_line_caused_by_deletion_in_another_function(repo: GitRepo) -> None:
    start(repo, {"a.py": "def helper():\n    return 1\n\n\ndef user():\n    return helper()\n"})
    repo.commit({"a.py": "def user():\n    return helper()\n"})
    assert table(review(repo), "F821") == [("F821", "a.py", 2, "introduced", "elsewhere")]


def test_s12_reindented_long_line(repo: GitRepo) -> None:
    long = "x = ['aaaaaaaaaa', 'bbbbbbbbbb', 'cccccccccc', 'dddddddddd']\n"
    start(repo, {"a.py": "if True:\n  " + long})
    repo.commit({"a.py": "if True:\n    " + long})
    assert table(review(repo), "E501") == [("E501", "a.py", 2, "preexisting", None)]
    (v,) = review(repo).findings
    assert v.touched


def test_s13_reflowed_call_keeps_finding(repo: GitRepo) -> None:
    start(repo, {"a.py": "def f():\n    result = compute(undefined_name, 1, 2)\n    return result\n"})
    repo.commit(
        {
            "a.py": "def f():\n    result = compute(\n        undefined_name,\n        1,\n"
            "        2,\n    )\n    return result\n"
        }
    )
    rows = table(review(repo), "F821")
    assert sorted(r[3] for r in rows) == ["preexisting", "preexisting"]


def test_s14_suppression_comment_for_other_rule_does_not_change_identity(repo: GitRepo) -> None:
    start(repo, {"a.py": "def f():\n    unused = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'\n"})
    repo.commit(
        {"a.py": "def f():\n    unused = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'  # noqa: E501\n"}
    )
    assert table(review(repo), "F841") == [("F841", "a.py", 2, "preexisting", None)]


def test_s15_one_of_two_identical_lines_deleted(repo: GitRepo) -> None:
    start(repo, {"a.py": "x = 1\nif x == None:\n    pass\nif x == None:\n    pass\n"})
    repo.commit({"a.py": "x = 1\nif x == None:\n    pass\n"})
    rows = table(review(repo), "E711")
    assert rows == [("E711", "a.py", 2, "preexisting", None), ("E711", "a.py", 4, "fixed", None)]


def test_s16_third_identical_line_inserted_between_two(repo: GitRepo) -> None:
    line = "if x == None:\n    pass\n"
    start(repo, {"a.py": "x = 1\n" + line + "y = 2\n" + line})
    repo.commit({"a.py": "x = 1\n" + line + "w = 0\n" + line + "y = 2\n" + line})
    result = review(repo)
    rows = table(result, "E711")
    assert [r[3] for r in rows].count("introduced") == 1 and len(rows) == 3
    (new,) = [r for r in rows if r[3] == "introduced"]
    (change,) = result.changes
    assert new[2] in change.changed_lines  # the copy the diff calls added is the new one


def test_s17_identical_line_inserted_above_two(repo: GitRepo) -> None:
    line = "if x == None:\n    pass\n"
    start(repo, {"a.py": "x = 1\n" + line + line})
    repo.commit({"a.py": "x = 1\n" + line + line + line})
    rows = table(review(repo), "E711")
    assert [r[3] for r in rows].count("introduced") == 1
    assert [r[3] for r in rows].count("preexisting") == 2


def test_s18_message_with_line_number_after_shift(repo: GitRepo) -> None:
    start(repo, {"a.py": "import os\nimport os\n"})
    repo.commit({"a.py": "\n\n\nimport os\nimport os\n"})
    rows = table(review(repo), "F811")
    assert rows == [("F811", "a.py", 5, "preexisting", None)]


def test_s19_variable_renamed_in_place_is_changed(repo: GitRepo) -> None:
    start(repo, {"a.py": "def f():\n    foo = 1\n    return 2\n"})
    repo.commit({"a.py": "def f():\n    bar = 1\n    return 2\n"})
    result = review(repo)
    assert table(result, "F841") == [("F841", "a.py", 2, "changed", None)]
    assert result.findings[0].reasons == ("message-args",)


def test_s23_second_rule_on_a_line_with_a_preexisting_one(repo: GitRepo) -> None:
    start(repo, {"a.py": "def f():\n    return ['aaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb', 'ccccccccccccc']\n"})
    repo.commit({"a.py": "def f():\n    x = ['aaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb', 'ccccccccccccc']\n"})
    rows = table(review(repo))
    assert ("E501", "a.py", 2, "preexisting", None) in rows
    assert ("F841", "a.py", 2, "introduced", "diff") in rows


def test_s24_line_edited_same_finding_stays(repo: GitRepo) -> None:
    start(repo, {"a.py": "def f(x):\n    if x == None:\n        return 1\n"})
    repo.commit({"a.py": "def f(y):\n    if y == None:\n        return 1\n"})
    result = review(repo)
    assert table(result, "E711") == [("E711", "a.py", 2, "preexisting", None)]
    assert result.findings[0].touched


def test_s25_fixed_here_introduced_there(repo: GitRepo) -> None:
    start(
        repo,
        {
            "a.py": "def f(x):\n    if x == None:\n        return 1\n"
            + filler(20)
            + "def g(y):\n    return y\n"
        },
    )
    repo.commit(
        {
            "a.py": "def f(x):\n    if x is None:\n        return 1\n"
            + filler(20)
            + "def g(y):\n    if y == None:\n        return 0\n    return y\n"
        }
    )
    assert table(review(repo), "E711") == [
        ("E711", "a.py", 2, "fixed", None),
        ("E711", "a.py", 25, "introduced", "diff"),
    ]


def test_s26_new_file(repo: GitRepo) -> None:
    start(repo, {"a.py": "x = 1\n"})
    repo.commit({"new.py": "import os\n"})
    assert table(review(repo), "F401") == [("F401", "new.py", 1, "introduced", "diff")]


def test_s27_file_deleted(repo: GitRepo) -> None:
    start(repo, {"a.py": "import os\nimport sys\n", "b.py": "x = 1\n"})
    repo.commit({"a.py": None})
    assert [r[3] for r in table(review(repo), "F401")] == ["fixed", "fixed"]


def test_s28_file_level_finding_in_renamed_file(repo: GitRepo) -> None:
    config = RUFF_CONFIG.replace('"RET"]', '"RET", "D100"]')
    start(repo, {"old.py": "x = 1\n" + filler(10)}, config)
    repo.mv("old.py", "new.py")
    repo.commit({"new.py": "x = 2\n" + filler(10)})
    assert table(review(repo), "D100") == [("D100", "new.py", 1, "preexisting", None)]


def test_s29_multi_line_finding_whose_end_was_edited(repo: GitRepo) -> None:
    """Anchored on its start line: editing inside or at the end of the span keeps it old."""
    config = RUFF_CONFIG.replace('"RET"]', '"RET", "C408"]')
    start(repo, {"a.py": "x = dict(\n    a=1,\n    b=2,\n)\n"}, config)
    repo.commit({"a.py": "x = dict(\n    a=1,\n    b=3,\n    c=4,\n)  # more\n"})
    assert table(review(repo), "C408") == [("C408", "a.py", 1, "preexisting", None)]


def test_s30_whole_file_reindented(repo: GitRepo) -> None:
    src = "def f():\n  unused = 1\n  if True:\n    other = 2\n  return 3\n"
    start(repo, {"a.py": src})
    repo.commit({"a.py": src.replace("  ", "    ")})
    assert [r[3] for r in table(review(repo), "F841")] == ["preexisting", "preexisting"]


def test_s31_crlf_to_lf(repo: GitRepo) -> None:
    src = "import os\n\n\ndef f():\n    unused = 1\n"
    start(repo, {"a.py": src.replace("\n", "\r\n").encode()})
    repo.commit({"a.py": src})
    rows = table(review(repo))
    assert {r[3] for r in rows if r[0] in ("F401", "F841")} == {"preexisting"}


def test_s32_next_line_edited(repo: GitRepo) -> None:
    start(repo, {"a.py": "def f():\n    unused = 1\n    return 2\n"})
    repo.commit({"a.py": "def f():\n    unused = 1\n    return 3\n"})
    assert table(review(repo), "F841") == [("F841", "a.py", 2, "preexisting", None)]


def test_s33_base_did_not_parse(repo: GitRepo) -> None:
    start(repo, {"a.py": "def f(:\n    pass\n\n\nimport os\n"})
    repo.commit({"a.py": "def f():\n    unused = 1\n\n\nimport os\n"})
    rows = table(review(repo))
    assert ("F841", "a.py", 2, "introduced", "diff") in rows
    assert ("F401", "a.py", 5, "unclassified", None) in rows


def test_s34_head_does_not_parse(repo: GitRepo) -> None:
    start(repo, {"a.py": "import os\n\n\ndef f():\n    return 1\n"})
    repo.commit({"a.py": "import os\n\n\ndef f(:\n    return 1\n"})
    result = review(repo)
    rows = table(result)
    assert {(r[0], r[3]) for r in rows} == {("invalid-syntax", "introduced")}
    assert not result.fixed
    assert any("could not be compared" in n for n in result.notes)


def test_s35_target_moved_on_after_fork_point(repo: GitRepo) -> None:
    start(repo, {"a.py": "import os\n", "b.py": "x = 1\n"})
    repo.commit({"b.py": "x = 1\nimport sys\n"})
    repo.checkout("main")
    repo.commit({"a.py": "\n", "c.py": "import json\n"}, "main moves on: fixes a.py, adds c.py")
    repo.checkout("feature")
    result = review(repo)
    assert table(result) == [
        ("E402", "b.py", 2, "introduced", "diff"),
        ("F401", "b.py", 2, "introduced", "diff"),
    ]
    assert result.merge_base == repo.git("merge-base", "main", "feature")


def test_s36_pr_enables_a_new_rule(repo: GitRepo) -> None:
    start(repo, {"a.py": "def f(x):\n    return x\n\n\ndef g():\n    return None\n"})
    repo.commit(
        {
            "pyproject.toml": RUFF_CONFIG.replace('"RET"]', '"RET", "ANN"]'),
            "a.py": "def f(x):\n    return x\n\n\ndef g():\n    return None\n\n\ndef h(y):\n    return y\n",
        }
    )
    rows = table(review(repo), "ANN001")
    assert rows == [("ANN001", "a.py", 1, "preexisting", None), ("ANN001", "a.py", 9, "introduced", "diff")]


def test_s37_one_of_two_identical_functions_deleted(repo: GitRepo) -> None:
    fn = "def {n}():\n    unused = 1\n    return 2\n\n\n"
    start(repo, {"a.py": fn.format(n="a") + fn.format(n="b")})
    repo.commit({"a.py": fn.format(n="a")})
    rows = table(review(repo), "F841")
    assert rows == [("F841", "a.py", 2, "preexisting", None), ("F841", "a.py", 7, "fixed", None)]


def test_s38_low_information_line_in_a_different_function(repo: GitRepo) -> None:
    start(repo, {"a.py": "def f():\n    print(1)\n    return None\n\n\ndef keep():\n    return 5\n"})
    repo.commit({"a.py": "def keep():\n    return 5\n\n\ndef g():\n    print(2)\n    return None\n"})
    rows = table(review(repo), "RET501")
    assert sorted(r[3] for r in rows) == ["fixed", "introduced"]


def test_s39_two_findings_on_one_line_one_removed(repo: GitRepo) -> None:
    start(repo, {"a.py": "import os, sys\n"})
    repo.commit({"a.py": "import os\n"})
    result = review(repo)
    rows = table(result, "F401")
    assert rows == [("F401", "a.py", 1, "fixed", None), ("F401", "a.py", 1, "preexisting", None)]
    (kept,) = [v for v in result.findings if v.finding.rule == "F401"]
    assert "os" in kept.finding.message and kept.base is not None and "os" in kept.base.message


def test_verdicts_are_deterministic(repo: GitRepo) -> None:
    line = "if x == None:\n    pass\n"
    start(repo, {"a.py": "x = 1\n" + line * 3})
    repo.commit({"a.py": "x = 1\n" + line * 5})
    first, second = review(repo), review(repo)
    assert first.findings == second.findings and first.fixed == second.fixed


def test_eslint_severity_raised_by_inline_config_is_changed(repo: GitRepo) -> None:
    require_tool("eslint")
    config = 'export default [{ files: ["**/*.js"], rules: { eqeqeq: "warn" } }];\n'
    start(repo, {"eslint.config.mjs": config, "a.js": '/* eslint eqeqeq: "warn" */\nif (a == b) {}\n'}, "")
    repo.commit({"a.js": '/* eslint eqeqeq: "error" */\nif (a == b) {}\n'})
    result = review(repo)
    (v,) = result.findings
    assert v.scope == "changed" and v.reasons == ("severity-up",)


def test_eslint_and_biome_verdicts_on_real_tools(repo: GitRepo, tmp_path: Path) -> None:
    require_tool("eslint")
    config = (
        'export default [{ files: ["**/*.js"], rules: { "no-unused-vars": "error", eqeqeq: "error" } }];\n'
    )
    start(
        repo,
        {
            "eslint.config.mjs": config,
            "a.js": "const old = 1;\n\nexport function f(a, b) {\n  return a == b;\n}\n",
        },
        "",
    )
    repo.commit(
        {
            "a.js": "// header\nconst old = 1;\nconst fresh = 2;\n\nexport function f(a, b) {\n"
            "  return a === b;\n}\n"
        }
    )
    rows = table(review(repo))
    assert rows == [
        ("eqeqeq", "a.js", 4, "fixed", None),
        ("no-unused-vars", "a.js", 2, "preexisting", None),
        ("no-unused-vars", "a.js", 3, "introduced", "diff"),
    ]

    other = GitRepo(tmp_path / "biome")
    require_tool("biome")
    start(other, {"biome.json": "{}\n", "a.js": "let a = 1;\nif (a == 2) { a = 3 }\n"}, "")
    other.commit({"a.js": "\nlet a = 1;\nif (a == 2) { a = 3 }\nif (a == 4) { a = 5 }\n"})
    rows = table(review(other), "suspicious/noDoubleEquals")
    assert rows == [
        ("suspicious/noDoubleEquals", "a.js", 3, "preexisting", None),
        ("suspicious/noDoubleEquals", "a.js", 4, "introduced", "diff"),
    ]


FILE_LEVEL_CONFIG = """\
[tool.ruff.lint]
preview = true
select = ["F401", "CPY001", "D100", "INP001"]
"""


def test_file_level_findings_stay_preexisting_when_lines_are_inserted_above_line_1(repo: GitRepo) -> None:
    """CPY001, D100 and INP001 sit at the empty range 1:1: a comment and an import added at the
    top do not make them new; the unused import that moved down stays old through the line map."""
    start(repo, {"pkg/mod.py": "import os\n\n\ndef f():\n    return 1\n"}, FILE_LEVEL_CONFIG)
    repo.commit({"pkg/mod.py": "# tools\nimport sys\nimport os\n\n\ndef f():\n    return 1\n"})
    assert table(review(repo)) == [
        ("CPY001", "pkg/mod.py", 1, "preexisting", None),
        ("D100", "pkg/mod.py", 1, "preexisting", None),
        ("F401", "pkg/mod.py", 2, "introduced", "diff"),
        ("F401", "pkg/mod.py", 3, "preexisting", None),
        ("INP001", "pkg/mod.py", 1, "preexisting", None),
    ]


# --- refactors: old findings keep their origin; what the refactor really creates is new ------

REFACTOR_CONFIG = """\
[tool.ruff]
line-length = 100

[tool.ruff.lint]
select = ["E", "F", "W", "B", "RET"]
"""
TOTALS = ("def compute_totals(items, cache={}):\n    unused = len(items)\n    if items == None:\n"
          "        return 0\n    return sum(i for i in items)\n")
SHORT = "def f(a, b=[]):\n    x = 1\n    if a == None:\n        return b\n    return a\n"


def refactor(repo: GitRepo, base: dict[str, str | bytes | None],
             head: dict[str, str | bytes | None]) -> list[tuple[str, str, int, str, str | None]]:
    start(repo, base, REFACTOR_CONFIG)
    repo.commit(head)
    return table(review(repo))


def test_extract_a_function_into_a_new_module_leaves_an_unused_import_behind(repo: GitRepo) -> None:
    rows = refactor(repo, {"app.py": "import os\n\n\n" + TOTALS + "\n\ndef main():\n"
                                     "    return compute_totals([os.sep])\n"},
                    {"app.py": "import os\nimport sys\n\nfrom totals import compute_totals\n\n\n"
                               "def main():\n    return compute_totals([os.sep])\n",
                     "totals.py": TOTALS})
    assert rows == [("B006", "totals.py", 1, "preexisting", None),
                    ("E711", "totals.py", 3, "preexisting", None),
                    ("F401", "app.py", 2, "introduced", "diff"),
                    ("F841", "totals.py", 2, "preexisting", None)]


def test_a_function_moved_into_a_new_file_under_a_new_name(repo: GitRepo) -> None:
    """Short lines, none of them telling on its own: the definition is what moved."""
    rows = refactor(repo, {"app.py": "import os\n\n\n" + SHORT + "\n\ndef g():\n    return f(os)\n"},
                    {"app.py": "import os\n\nfrom util import h\n\n\ndef g():\n    return h(os)\n",
                     "util.py": SHORT.replace("def f(", "def h(")})
    assert rows == [("B006", "util.py", 1, "preexisting", None),
                    ("E711", "util.py", 3, "preexisting", None),
                    ("F841", "util.py", 2, "preexisting", None)]


def test_rename_a_function_and_its_callers(repo: GitRepo) -> None:
    app = "import os\n\n\n" + TOTALS + "\n\ndef main():\n    return compute_totals([os.sep])\n"
    rows = refactor(repo, {"app.py": app}, {"app.py": app.replace("compute_totals", "totals_of")})
    assert [r[3] for r in rows] == ["preexisting"] * 3


def test_move_a_method_into_another_class_and_rename_it(repo: GitRepo) -> None:
    base = ("class A:\n    def keep(self):\n        return 1\n\n    def moved(self, x=[]):\n"
            "        y = 2\n        return x == None\n\n\nclass B:\n    def other(self):\n"
            "        return 2\n")
    head = ("class A:\n    def keep(self):\n        return 1\n\n\nclass B:\n    def other(self):\n"
            "        return 2\n\n    def arrived(self, x=[]):\n        y = 2\n        return x == None\n")
    assert [r[3] for r in refactor(repo, {"app.py": base}, {"app.py": head})] == ["preexisting"] * 3


def test_a_function_made_a_method_and_reformatted_by_the_deeper_indentation(repo: GitRepo) -> None:
    base = ("def build_report(records, threshold=10, cache={}):\n"
            "    unused_total = len(records) * threshold + sum(r.get(\"weight\", 0) for r in records if r)\n"
            "    return [transform(r, threshold, label=\"x\") for r in records if r.get(\"on\") == True]\n")
    head = ("class Reports:\n    def build_report(\n        self, records, threshold=10, cache={}\n    ):\n"
            "        unused_total = len(records) * threshold + sum(\n"
            "            r.get(\"weight\", 0) for r in records if r\n        )\n"
            "        return [\n            transform(r, threshold, label=\"x\")\n"
            "            for r in records\n            if r.get(\"on\") == True\n        ]\n")
    rows = refactor(repo, {"reports.py": base}, {"reports.py": None, "app/reports.py": head})
    assert [r[3] for r in rows] == ["preexisting"] * 4, rows


def test_split_a_file_in_two(repo: GitRepo) -> None:
    other = TOTALS.replace("compute_totals", "other_totals")
    rows = refactor(repo, {"app.py": "import sys\n\n\n" + TOTALS + "\n\n" + other + "\n\ndef main():\n"
                                     "    return compute_totals(sys.argv)\n"},
                    {"app.py": "import sys\n\n\n" + TOTALS + "\n\ndef main():\n"
                               "    return compute_totals(sys.argv)\n",
                     "other.py": "import sys\n\n\n" + other.replace("sum(i for", "sum(sys.maxsize for")})
    assert rows == [("B006", "app.py", 4, "preexisting", None),
                    ("B006", "other.py", 4, "preexisting", None),
                    ("E711", "app.py", 6, "preexisting", None),
                    ("E711", "other.py", 6, "preexisting", None),
                    ("F841", "app.py", 5, "preexisting", None),
                    ("F841", "other.py", 5, "preexisting", None)]


def test_eslint_a_function_made_a_method_of_a_class_in_a_new_file_and_reformatted(repo: GitRepo) -> None:
    """A refactor across files, names and layout at once: the function becomes a renamed
    method in a new module, Prettier-style wrapped; its old findings keep their origin, and the
    one the refactor really creates (the import left unused) is new."""
    require_tool("eslint")
    config = ('export default [{ files: ["**/*.js"], languageOptions: { sourceType: "module" }, '
              'rules: { "no-unused-vars": "error", eqeqeq: "error" } }];\n')
    helper = ("export function total(items, limit) {\n  const spare = items.length + limit;\n"
              "  if (limit == null) { return items.reduce((sum, item) => sum + item.price, 0); }\n"
              "  return items.slice(0, limit).length;\n}\n")
    start(repo, {"eslint.config.mjs": config, "package.json": '{"type": "module"}\n',
                 "a.js": "import { readFile } from 'node:fs';\n\n" + helper
                 + "\nexport const main = () => readFile;\n"}, "")
    method = ("export class Cart {\n  sum(items, limit) {\n    const spare = items.length + limit;\n"
              "    if (limit == null) {\n      return items.reduce(\n"
              "        (sum, item) => sum + item.price,\n        0,\n      );\n    }\n"
              "    return items.slice(0, limit).length;\n  }\n}\n")
    repo.commit({"a.js": "import { readFile } from 'node:fs';\nimport { Cart } from './cart.js';\n\n"
                         "export const main = () => readFile;\n",
                 "cart.js": method})
    assert table(review(repo)) == [
        ("eqeqeq", "cart.js", 4, "preexisting", None),
        ("no-unused-vars", "a.js", 2, "introduced", "diff"),
        ("no-unused-vars", "cart.js", 3, "preexisting", None),
    ]


# --- definitions reordered within one file: every old finding stays old -------------------------

def none_check(name: str, value: int, indent: str = "") -> str:
    """A small function with one E711 (the same rule and message in each)."""
    return (f"{indent}def {name}(self, x):\n{indent}    if x == None:\n"
            f"{indent}        return {value}\n{indent}    return 2\n") if indent else (
        f"def {name}(x):\n    if x == None:\n        return {value}\n    return 2\n")


FIVE = ["alpha", "beta", "gamma", "delta", "epsilon"]
NUMBER = {name: i for i, name in enumerate([*FIVE, "zeta"])}


def functions(names: list[str]) -> str:
    return "\n\n".join(none_check(n, NUMBER[n]) for n in names)


def test_five_functions_written_in_reverse_order(repo: GitRepo) -> None:
    start(repo, {"a.py": functions(FIVE)})
    repo.commit({"a.py": functions(FIVE[::-1])})
    assert [r[3] for r in table(review(repo))] == ["preexisting"] * 5


def test_four_functions_reordered_with_a_new_one_among_them(repo: GitRepo) -> None:
    start(repo, {"a.py": functions(FIVE[:4])})
    repo.commit({"a.py": functions(["delta", "beta", "zeta", "alpha", "gamma"])})
    # zeta, the third function, holds the one new finding.
    assert [r for r in table(review(repo)) if r[3] != "preexisting"] == [
        ("E711", "a.py", 14, "introduced", "diff")]


def test_classes_reordered(repo: GitRepo) -> None:
    def classes(names: list[str]) -> str:
        return "\n\n".join(f"class {n.title()}:\n" + none_check("check", NUMBER[n], "    ")
                           for n in names)

    start(repo, {"a.py": classes(FIVE)})
    repo.commit({"a.py": classes(FIVE[::-1])})
    assert [r[3] for r in table(review(repo))] == ["preexisting"] * 5


def test_methods_reordered_inside_a_class(repo: GitRepo) -> None:
    def methods(names: list[str]) -> str:
        return "class Checks:\n" + "\n".join(none_check(n, NUMBER[n], "    ") for n in names)

    start(repo, {"a.py": methods(FIVE)})
    repo.commit({"a.py": methods(FIVE[::-1])})
    assert [r[3] for r in table(review(repo))] == ["preexisting"] * 5


def test_two_identical_functions_swapped(repo: GitRepo) -> None:
    """Two functions alike but for their names, swapped; and one of two same-named copies moved
    past a third function (ruff's F811 flags the redefinition)."""
    left, right = none_check("left", 0), none_check("right", 0)
    start(repo, {"a.py": "\n\n".join([left, right])})
    repo.commit({"a.py": "\n\n".join([right, left])})
    assert [r[3] for r in table(review(repo))] == ["preexisting"] * 2
    twin, other = none_check("twin", 0), none_check("other", 1)
    repo.commit({"a.py": "\n\n".join([twin, other, twin])})
    repo.git("branch", "-f", "main")
    repo.commit({"a.py": "\n\n".join([other, twin, twin])})
    assert [r[3] for r in table(review(repo), "E711")] == ["preexisting"] * 3
