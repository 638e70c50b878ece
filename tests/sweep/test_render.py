"""The tracking issue's page: one row per regression, fixed ones struck through, tool text
inert, the environment's findings apart and attributed to no one."""

from __future__ import annotations

from bot.model import Finding, Severity, Span
from bot.render.markdown import BODY_LIMIT
from bot.sweep import render, state
from bot.sweep.render import Environment, Page, ToolChange
from bot.sweep.state import Regression, State

HEAD, BASE = "h" * 40, "b" * 40
NEW = Regression("fp1", "ruff", "F401", "error", "`os` | unused <script> @alice", "a.py", 1, 1, 8,
                 10, "c" * 40, "bob", 11, "bob-gh", ("@octo/core",), HEAD)
OLD = Regression("fp2", "ruff", "F821", "error", "Undefined name `LIMIT`", "u.py", 2, 2, 5, 10,
                 "d" * 40, "carol", None, None, (), BASE)
GONE = Regression("fp3", "ruff", "E711", "warning", "Comparison to None", "x.py", 1, 1, 1, 2, None)
TEXTS = {"a.py": ["import os\n", "import sys\n"], "u.py": ["def f(v):\n", "    return LIMIT\n"]}


def page(**kw: object) -> Page:
    return Page(**{"ref": "main", "head": HEAD, "base": BASE, "commits": 3, "open": (NEW, OLD),
                   **kw})  # type: ignore[arg-type]


def test_one_row_per_regression_new_open_and_fixed() -> None:
    rows = render.table(page(fixed=(GONE,))).splitlines()[2:]
    assert [r.split(" | ")[0] for r in rows] == ["| 🆕", "| ⏳", "| ✅"]
    assert "c" * 12 in rows[0] and "#11" in rows[0] and "bob (pull request by @\u200bbob-gh)" in rows[0]
    assert "pushed directly" in rows[1] and "d" * 12 in rows[1]
    assert rows[2].count("~~") == 12 and "not attributed" in rows[2]


def test_tool_text_cannot_break_the_table_or_ping_anyone() -> None:
    row = render.table(page()).splitlines()[2]
    assert "\\|" in row and "<script>" not in row and "&lt;script&gt;" in row
    assert "@alice" not in row and "@octo/core" not in row
    assert row.count(" | ") == 6  # seven cells, as the header has


def test_the_body_frames_every_open_regression() -> None:
    text = render.body(page(), TEXTS)
    assert "**2 open regressions** (1 new)." in text
    assert "█ 1 | import os" in text and "█ 2 |     return LIMIT" in text
    assert "New with" not in text


def test_no_open_regression() -> None:
    text = render.body(page(open=(), fixed=(NEW,)), TEXTS)
    assert "**No open regression**. 1 fixed since the last sweep." in text
    assert "### Open regressions" not in text


def test_the_environment_is_a_section_of_its_own() -> None:
    finding = Finding("ruff", "E711", Severity.WARNING, "Comparison to `None`", "old.py",
                      Span(2, 5, 2, 9))
    env = Environment(("pyproject.toml",), (ToolChange("ruff", "0.17.0", "0.18.0"),), (finding,))
    text = render.body(page(environment=env), TEXTS)
    section = text.split("### New with ruff 0.18.0 (was 0.17.0) and with the new configuration "
                         "(`pyproject.toml`)", 1)[1]
    assert "`old.py:2`" in section and "attributed to no commit" in section
    assert render.summary(page(environment=env)).count("### New with") == 1


def test_a_tool_change_with_nothing_new_says_so() -> None:
    env = Environment((), (ToolChange("ruff", "0.17.0", "0.18.0"),))
    assert "Nothing new." in render.body(page(environment=env), TEXTS)


def test_baseline_and_closing() -> None:
    text = render.baseline("main", HEAD, "The last swept commit is gone.")
    assert f"Baseline recorded at {HEAD[:12]}" in text and "The last swept commit is gone." in text
    assert HEAD[:12] in render.closing("main", HEAD)


def test_the_issue_body_holds_its_state_first_then_the_page() -> None:
    sha = "a" * 40
    first = render.baseline_issue("main", sha, "Gone.").splitlines()
    assert state.decode(first[0], "main") == State(sha)
    assert "\n".join(first[1:]) == render.baseline("main", sha, "Gone.")
    current = State(sha, {"ruff": "0.6"}, (NEW, OLD))
    marker, _, rest = render.issue(page(), current, TEXTS).partition("\n")
    assert state.decode(marker, "main") == current and rest == render.body(
        page(), TEXTS, BODY_LIMIT - len(marker) - 100)
