"""The summary page's tools table survives what tools really print: newlines and pipes; the
check run's report says the gate."""

from __future__ import annotations

import re

from bot.model import ReviewResult, ToolRun
from bot.publishing.gate import Gate
from bot.publishing.placement import Placed
from bot.publishing.summary import CHECK_NAME, check_report, render
from bot.run.pipeline import ReviewOptions, run_review
from tests.conftest import GitRepo, require_tool
from tests.forges.builders import change, finding, result, verdict

CELL_BREAK = re.compile(r"(?<!\\)\|")  # a pipe GitHub's table parser splits a row on


def table_rows(page: str) -> list[str]:
    lines = page.split("\n")
    start = lines.index("| tool | version | status | note |")
    rows = []
    for line in lines[start + 2:]:
        if not line:
            break
        rows.append(line)
    return rows


def cells(row: str) -> list[str]:
    assert row.startswith("| ") and row.endswith(" |"), row
    return [c.strip() for c in CELL_BREAK.split(row)[1:-1]]


def page_for(result: ReviewResult) -> str:
    """The page for a result whose findings (if any) are not placed: only the tools matter."""
    return render(result, Placed(()), Gate(0, "error"), {})


def test_a_real_ruff_failure_stays_in_its_row(repo: GitRepo) -> None:
    require_tool("ruff")
    # ruff's own error for a bad setting quotes the TOML line with `|` gutters over 6 lines
    repo.commit({"pyproject.toml": '[tool.ruff]\nline-length = "x|y"\n', "a.py": "x = 1\n"}, "base")
    repo.branch("feature")
    repo.commit({"a.py": "x = 2\n"})
    result = run_review(ReviewOptions(repo=repo.path, base="main"))
    ruff = next(t for t in result.tools if t.name == "ruff")
    assert ruff.status == "failed" and "\n" in ruff.message and "|" in ruff.message
    rows = table_rows(page_for(result))
    assert len(rows) == len(result.tools)
    row = next(r for r in rows if r.startswith("| ruff |"))
    note = cells(row)[3]
    assert note.startswith("<details><summary>") and note.endswith("</details>")
    assert "ruff failed</summary>" in note
    assert "x&#124;y" in note and "<br>" in note


def test_every_cell_is_one_line_without_a_live_pipe() -> None:
    message = "\n\n  first | line  \n`code | span`\nback\\|slash\r\n| --- |\n# heading\n"
    tools = (ToolRun("ev|l", "1.0\n|x", "failed", message), ToolRun("ok", "2", "ok"))
    result = ReviewResult("main", "0" * 40, "1" * 40, tools, (), ())
    rows = table_rows(page_for(result))
    assert len(rows) == 2
    name, version, _, note = cells(rows[0])
    assert (name, version) == ("ev&#124;l", "1.0 &#124;x")
    assert note.startswith("<details><summary>first &#124; line</summary>")
    assert "&#96;code &#124; span&#96;" in note and "back&#92;&#124;slash" in note
    assert cells(rows[1]) == ["ok", "2", "✅ ok", ""]


def test_a_one_line_message_is_plain() -> None:
    tools = (ToolRun("ruff", "0.17.6", "missing", "not installed: pip install ruff"),)
    rows = table_rows(page_for(ReviewResult("main", "0" * 40, "1" * 40, tools, (), ())))
    assert cells(rows[0])[3] == "not installed: pip install ruff"


def test_notes_and_unchecked_lines_stay_inside_their_quote() -> None:
    result = ReviewResult("main", "b" * 40, "c" * 40, (), (), (),
                          notes=("a\nnote on\n\ntwo lines",))
    page = render(result, Placed(()), Gate(0, "error", ("bad\nname.py: over the limit",)), {})
    quoted = [line for line in page.split("\n") if "note on" in line or "name.py" in line]
    assert quoted == ["> - bad name.py: over the limit", "> a note on two lines"]


def test_a_truncated_summary_says_where_the_rest_is_on_each_forge() -> None:
    from bot.forges.github import change as github
    from bot.forges.gitlab import change as gitlab
    from bot.model import Finding, Severity, Span, Verdict

    found = tuple(Verdict(Finding("ruff", f"R{n}", Severity.ERROR, f"message {n} " + "x" * 150,
                                  "a.py", Span(1, 1, 1, 4)), "introduced", f"fp{n}",
                          where="elsewhere") for n in range(200))
    result = ReviewResult("main", "a" * 40, "b" * 40, (ToolRun("ruff", "0.17.6", "ok"),),
                          found, ())
    lines = {"a.py": ["x = 1\n"]}
    for dialect, where in ((github.DIALECT, "the check run or the SARIF file"),
                           (gitlab.DIALECT, "the Code Quality report or the SARIF file")):
        page = render(result, Placed(()), Gate(1, "error"), lines, limit=8_000,
                      elsewhere=dialect.elsewhere)
        assert len(page) <= 8_000
        assert f"*(summary truncated: see {where})*" in page
        assert "message 199" not in page
    whole = render(result, Placed(()), Gate(1, "error"), lines, limit=10**6,
                   elsewhere=gitlab.DIALECT.elsewhere)
    assert "summary truncated" not in whole and "message 199" in whole


def test_the_check_report_says_the_gate_the_counts_and_what_was_not_checked() -> None:
    review = result("c" * 40, [verdict(finding("a.py", 3, end_line=5), "fp-1"),
                               verdict(finding("a.py", 9), "fp-2", scope="preexisting")],
                    [change("a.py", range(1, 5))])
    report = check_report(review, Gate(1, "error", ("mypy failed at the head", "x")), Placed(()), {})
    assert (report.name, report.head, report.conclusion) == (CHECK_NAME, "c" * 40, "failure")
    assert report.title == ("failing: 1 new or changed finding, 1 pre-existing; "
                            "not fully checked: mypy failed at the head …")
    assert "<!-- reviewbot:summary -->" not in report.summary
    assert [(a.path, a.start_line, a.end_line) for a in report.annotations] == [("a.py", 3, 5)]
    passing = check_report(review, Gate(0, "error"), Placed(()), {})
    assert passing.conclusion == "success" and passing.title.startswith("passing: ")
