"""The sweep's tracking issue, its job summary and its closing comment, parsed as GitHub renders
them, with every text a tool, git or CODEOWNERS supplies adversarial. The pull request column
links `#N` on purpose (that reference is the point of the row); nothing else may."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.sweep import render
from bot.sweep.render import Environment, Page, ToolChange
from bot.sweep.state import Regression
from tests import gfm
from tests.render.test_gfm import nasty, one_line

HEAD, BASE = "h" * 40, "b" * 40
TEXTS = {"a.py": [f"line_{n} = {n}\n" for n in range(1, 9)]}
# Names the sweep puts in code spans: backticks, pipes and backslashes included.
names = one_line.map(lambda s: s.strip() or "n")
paths = st.sampled_from(["a.py", "dir/b.py"]) | names


@st.composite
def regressions(draw: st.DrawFn) -> Regression:
    line = draw(st.integers(1, 8))
    return Regression("fp", draw(names), draw(names), "error", draw(nasty), draw(paths),
                      line, line, 1, 3, draw(st.none() | st.just("c" * 40)), draw(st.none() | nasty),
                      draw(st.none() | st.integers(1, 999)), draw(st.none() | one_line),
                      tuple(draw(st.lists(one_line, max_size=2))), draw(st.sampled_from([HEAD, BASE])))


def _without_pull_references(body: str, page: Page) -> str:
    """`body` with the intended `#N` of each row's pull request taken out."""
    for r in (*page.open, *page.fixed):
        if r.pull is not None:
            body = body.replace(f"{page.change}{r.pull}", "", 1)
    return body


def _check(body: str, page: Page) -> None:
    gfm.check_tables(body)
    gfm.check_html(body)
    shown = _without_pull_references(gfm.text(body), page)
    assert not gfm.PING.search(shown), (gfm.PING.search(shown), shown)
    for table in gfm.tables(body):
        assert len(table.rows) == len(page.open) + len(page.fixed)
    assert all(f.info in ("text",) for f in gfm.fences(body)), gfm.fences(body)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(regressions(), min_size=1, max_size=3), st.lists(regressions(), max_size=2),
       one_line, st.lists(nasty, max_size=2),
       st.lists(st.builds(ToolChange, one_line, one_line, one_line), max_size=1))
def test_the_tracking_issue_survives_any_text(open_: list[Regression], fixed: list[Regression],
                                              ref: str, notes: list[str],
                                              tools: list[ToolChange]) -> None:
    page = Page(ref, HEAD, BASE, 3, tuple(open_), tuple(fixed),
                Environment(("pyproject.toml",), tuple(tools)), tuple(notes))
    for body in (render.body(page, TEXTS), render.summary(page)):
        _check(body, page)
    for body in (render.closing(ref, HEAD), render.baseline(ref, HEAD, notes[0] if notes else "")):
        gfm.check_inert(body)


@pytest.mark.parametrize("path", ["we|ird.py", "a`b.py"])
def test_a_path_with_a_pipe_or_a_backtick_keeps_the_row(path: str) -> None:
    r = Regression("fp", "ruff", "F401", "error", "m", path, 1, 1, 1, 3, None)
    page = Page("main", HEAD, BASE, 1, (r,))
    gfm.check_tables(render.table(page))
    body = render.body(page, {})
    gfm.check_inert(body)
    assert path.replace("\\", "") in [t.content.split(":")[0] for t in gfm.walk(gfm.parse(body))
                                       if t.type == "code_inline"]


def test_a_tool_name_with_a_backtick_cannot_ping() -> None:
    r = Regression("fp", "any`tool", "R1", "error", "m", "a.py", 1, 1, 1, 3, None)
    page = Page("main", HEAD, BASE, 1, (r,))
    r2 = Regression("fp", "x", "`@alice #12", "error", "m", "a.py", 1, 1, 1, 3, None)
    page = Page("main", HEAD, BASE, 1, (r, r2))
    gfm.check_no_pings(render.body(page, {}))
