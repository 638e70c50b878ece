"""Every Markdown body the bot writes, parsed as GitHub renders it: tables keep their columns,
code frames and suggestions stay in their fences, the only raw HTML is the hidden markers and a
few balanced tags, and nothing turns into a mention or an issue reference.

Bodies come from a real review of the bundled example and from findings whose every text
(message, rule, path, tool message, note, base ref) is adversarial.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.forges.github import change as github
from bot.forges.gitlab import change as gitlab
from bot.forges.gitlab.notes import defuse
from bot.model import Edit, Finding, Fix, ReviewResult, Severity, Span, ToolRun, Verdict
from bot.positions import split_lines
from bot.publishing import summary
from bot.publishing.gate import Gate, decide
from bot.publishing.placement import Placed
from bot.publishing.policy import place
from bot.publishing.summary import check_report
from bot.render.dialect import Dialect
from bot.render.markdown import Commented, comment_body
from bot.render.suggestion import Suggestion, suggest
from bot.run.pipeline import ReviewOptions, run_review
from tests import gfm
from tests.conftest import GitRepo
from tests.forges.builders import change, texts

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "demo"
DIALECTS = (github.DIALECT, gitlab.DIALECT)

# Pieces GitHub's renderer, GitHub's reference linker or GitLab's quick actions would act on.
NASTY = ["\n", "\n\n", "\r\n", "|", "\\|", "\\", "`", "``", "```", "~~~", "<script>", "</script>",
         "@user", "@org/team", "#123", "owner/repo#7", "GH-1", "!12", "https://x.example/a#1",
         "user@example.com", "</details>", "<details>", "<!--", "-->", "<!-- reviewbot:summary -->",
         "/close", "\n/merge", "# ", "## ", "- ", "* ", "+ ", "1. ", "2) ", "> ", "    ", "\t",
         "---", "===", "***", "[x](https://e.example)", "![i](https://e.example/p.png)",
         "[x]: https://e.example", "*", "_", "~~", "&amp;", "&#64;", "é", "漢", "\u202e", "\u200b",
         "[ ] ", "[!NOTE]", "<br>", "<sub>", "a", " ", "x = 1"]
nasty = st.lists(st.sampled_from(NASTY) | st.text(max_size=3), max_size=12).map("".join)
one_line = nasty.map(lambda s: " ".join(s.split()) or "r")


def _repo_from_example(root: Path) -> GitRepo:
    repo = GitRepo(root)
    repo.write({p.name: p.read_text() for p in (EXAMPLE / "base").iterdir()})
    repo.commit(message="inventory and cart")
    repo.branch("feature")
    repo.checkout("feature")
    repo.write({p.name: p.read_text() for p in (EXAMPLE / "head").iterdir()})
    repo.commit(message="the example change")
    return repo


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> tuple[ReviewResult, dict[str, list[str]]]:
    root = tmp_path_factory.mktemp("example")
    repo = _repo_from_example(root / "shop")
    result = run_review(ReviewOptions(repo=repo.path, base="main", only=("ruff",),
                                      cache_dir=root / "cache"))
    shutil.rmtree(root / "cache", ignore_errors=True)
    return result, texts(repo.path, result.head, [c.path for c in result.changes])


def _fence_checks(body: str, verdict: Verdict, suggestion: Suggestion | None,
                  dialect: Dialect) -> None:
    """The frame is one text fence with the flagged line; the suggestion, if any, is one
    suggestion fence with exactly its lines; nothing of either leaks into the text."""
    found = gfm.fences(body)
    frames = [f for f in found if f.info == "text"]
    offered = [f for f in found if f.info.startswith("suggestion")]
    assert len(frames) + len(offered) == len(found), found
    if verdict.finding.file_level:
        assert not frames
    else:
        assert len(frames) == 1 and "█" in frames[0].content, (found, body)
    if suggestion is None:
        assert not offered, body
    else:
        assert len(offered) == 1, (found, body)
        expected = "".join(line + "\n" for line in suggestion.lines)
        assert offered[0].content == expected
        if dialect.name == "github":
            assert offered[0].info == "suggestion"
    assert "█" not in gfm.text(body)


def _check_gitlab(body: str) -> None:
    """No line outside code starts with a slash (a GitLab quick action)."""
    note = defuse(body)
    lines = note.split("\n")
    inside: set[int] = set()
    for token in gfm.parse(note):
        if token.type in ("fence", "code_block") and token.map:
            inside.update(range(*token.map))
    for number, line in enumerate(lines):
        if number not in inside:
            assert not line.lstrip().startswith("/"), (line, note)
    gfm.check_inert(note)


# -- the real review ---------------------------------------------------------------------------


def test_example_comments_render_as_intended(
        example: tuple[ReviewResult, dict[str, list[str]]]) -> None:
    result, lines = example
    assert result.count("introduced") >= 2 and result.count("changed") == 1
    for dialect in DIALECTS:
        items = place(result, lines, dialect=dialect)
        bodies = [i for i in items if i.body is not None]
        assert len(bodies) >= 2
        for item in bodies:
            assert item.body is not None
            body = item.body.text
            gfm.check_inert(body)
            fix = item.verdict.finding.fix
            made = suggest(fix, item.verdict.finding.path, lines[item.verdict.finding.path]) \
                if fix else None
            offered = made if isinstance(made, Suggestion) and "suggestion" in body else None
            _fence_checks(body, item.verdict, offered, dialect)
            assert gfm.html(body)[-1].startswith("<!-- reviewbot:fp=")
            if dialect is gitlab.DIALECT:
                _check_gitlab(body)
    # ruff offers a fix for F841: at least one comment carries a one-click suggestion.
    assert any("suggestion" in (i.body.text if i.body else "")
               for i in place(result, lines, dialect=github.DIALECT))


def test_example_summary_check_run_and_job_summary(
        example: tuple[ReviewResult, dict[str, list[str]]]) -> None:
    result, lines = example
    gate = decide(result)
    placed = Placed(place(result, lines, dialect=github.DIALECT))
    page = summary.render(result, placed, gate, lines)
    job = summary.job_summary(result, placed, gate, lines)
    report = check_report(result, gate, placed, lines)
    for body in (page, job, report.summary, defuse(page)):
        gfm.check_inert(body)
        counts, tools = gfm.check_tables(body)
        assert counts.header[1:] == ("introduced", "changed", "preexisting", "fixed")
        assert len(tools.rows) == len(result.tools)
    assert gfm.html(page)[0] == "<!-- reviewbot:summary -->\n"
    elsewhere = [v for v in result.findings if v.where == "elsewhere"]
    assert elsewhere and len([f for f in gfm.fences(page) if "█" in f.content]) >= len(elsewhere)
    _check_gitlab(page)


# -- adversarial text --------------------------------------------------------------------------

SOURCE = split_lines("".join(f"line_{n} = {n}\n" for n in range(1, 9)))


@st.composite
def verdicts(draw: st.DrawFn) -> Verdict:
    line = draw(st.integers(1, 8))
    edits = (Edit("a.py", Span(line, 1, line, 3), draw(nasty.map(lambda s: s.replace("\n", "")))),)
    fix = draw(st.none() | st.just(Fix(draw(nasty), edits, draw(st.sampled_from(["safe", "unsafe"])))))
    finding = Finding(draw(one_line), draw(one_line), draw(st.sampled_from(list(Severity))),
                      draw(nasty), "a.py", Span(line, 1, line, 4),
                      url=draw(st.none() | st.just("https://docs.example/rule")), fix=fix,
                      file_level=draw(st.booleans()))
    scope = draw(st.sampled_from(["introduced", "changed", "preexisting", "unclassified"]))
    where = draw(st.sampled_from(["diff", "elsewhere"])) if scope == "introduced" else None
    return Verdict(finding, scope, "fp" + str(line), where=where)  # type: ignore[arg-type]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(verdicts(), st.sampled_from(DIALECTS), nasty)
def test_comment_body_survives_any_text(verdict: Verdict, dialect: Dialect, note: str) -> None:
    fix = verdict.finding.fix
    made = suggest(fix, "a.py", SOURCE) if fix else None
    body = comment_body(Commented(verdict, verdict.fingerprint, SOURCE, made, note), dialect).text
    gfm.check_inert(body)
    _fence_checks(body, verdict, made if isinstance(made, Suggestion) else None, dialect)
    if dialect is gitlab.DIALECT:
        _check_gitlab(body)


def _result(found: Sequence[Verdict], tools: Sequence[ToolRun], notes: Sequence[str],
            base_ref: str) -> ReviewResult:
    return ReviewResult(base_ref, "b" * 40, "c" * 40, tuple(tools), tuple(found), (),
                        (change("a.py", range(1, 9)),), tuple(notes))


tool_runs = st.builds(ToolRun, one_line, st.none() | one_line,
                      st.sampled_from(["ok", "missing", "failed", "timeout", "skipped"]), nasty)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(verdicts(), max_size=4), st.lists(tool_runs, min_size=1, max_size=3),
       st.lists(nasty, max_size=2), nasty, st.lists(nasty, max_size=2))
def test_summary_survives_any_text(found: list[Verdict], tools: list[ToolRun], notes: list[str],
                                   base_ref: str, unchecked: list[str]) -> None:
    result = _result(found, tools, notes, base_ref)
    lines = {"a.py": SOURCE}
    placed = Placed(place(result, lines, dialect=github.DIALECT))
    page = summary.render(result, placed, Gate(1, "error", tuple(unchecked)), lines)
    gfm.check_inert(page)
    _counts, table = gfm.check_tables(page)
    assert len(table.rows) == len(tools)
    _check_gitlab(page)


def test_a_message_cannot_open_a_fence_or_a_table() -> None:
    f = Finding("ruff", "F1", Severity.ERROR, "first\n```\n| a | b |\n|---|---|\n# head\n@x #1",
                "a.py", Span(2, 1, 2, 4))
    body = comment_body(Commented(Verdict(f, "introduced", "fp", where="diff"), "fp", SOURCE),
                        github.DIALECT).text
    assert [x.info for x in gfm.fences(body)] == ["text"]
    assert gfm.tables(body) == []
    assert not any(t.type == "heading_open" for t in gfm.parse(body))
    gfm.check_inert(body)


def test_a_truncated_summary_still_closes_its_fences_and_details() -> None:
    for limit in range(1_500, 30_000, 211):
        _check_truncated(limit)


def _check_truncated(limit: int) -> None:
    lines = {"a.py": SOURCE}
    found = [Verdict(Finding("ruff", f"R{n}", Severity.ERROR, f"message {n} " + "x" * 150, "a.py",
                             Span(1 + n % 8, 1, 1 + n % 8, 4)),
                     scope, f"fp{n}", where="elsewhere" if scope == "introduced" else None)
             for n in range(60) for scope in ("introduced", "preexisting")]
    result = _result(found, [ToolRun("ruff", "0.17.6", "ok")], [], "main")
    whole = summary.render(result, Placed(()), Gate(1, "error"), lines, limit=10**6)
    page = summary.render(result, Placed(()), Gate(1, "error"), lines, limit=limit)
    assert len(page) <= limit
    gfm.check_inert(page)
    # The note, when cut, is text: not swallowed by an open fence or a <details>.
    assert ("summary truncated" in gfm.text(page)) == (len(whole) > limit)
    for block in gfm.fences(page):
        assert block.content.count("█") >= 1 and not block.content.endswith("…")
