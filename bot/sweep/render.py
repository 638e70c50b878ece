"""The tracking issue's body (its state, `bot.sweep.state`, hidden at the top), the job
summary's table and the closing comment. Pure.

One row per regression: still open (🆕 new in this sweep, ⏳ reported before) or fixed since
the last sweep (struck through, shown once). Findings that only a tool upgrade or a new
configuration brought are a section of their own, attributed to no one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.model import Finding, Severity, Span
from bot.render.markdown import BODY_LIMIT, SEVERITY_ICONS, clip, code, escape, frame
from bot.sweep import state
from bot.sweep.state import Regression, State

MAX_FRAMES = 25
MAX_ROWS = 200
MAX_ENVIRONMENT = 50


@dataclass(frozen=True)
class ToolChange:
    name: str
    before: str
    after: str


@dataclass(frozen=True)
class Environment:
    """What changed around the code between the two sweeps, and what it alone brought."""

    config_paths: tuple[str, ...] = ()
    tools: tuple[ToolChange, ...] = ()
    findings: tuple[Finding, ...] = ()


@dataclass(frozen=True)
class Page:
    ref: str
    head: str
    base: str  # the last swept commit
    commits: int  # in the range
    open: tuple[Regression, ...]
    fixed: tuple[Regression, ...] = ()
    environment: Environment = Environment()
    notes: tuple[str, ...] = ()
    change: str = "#"  # how the forge links a pull request by number: #7 (GitHub), !7 (GitLab)


def title(ref: str) -> str:
    return f"reviewbot: regressions on {ref}"


def baseline(ref: str, head: str, note: str = "") -> str:
    lead = f"{escape(note)}\n\n" if note else ""
    return (f"## reviewbot: regressions on {code(ref)}\n\n{lead}"
            f"Baseline recorded at {head[:12]}. Nothing before it is reported. The next sweep "
            f"reports every finding the commits after {head[:12]} introduce, with the commit, "
            "pull request and author that brought it; this issue opens while any is unfixed.")


def baseline_issue(ref: str, head: str, note: str = "") -> str:
    """The tracking issue's body when a baseline is recorded: the state (the head, nothing
    open), then the page."""
    return f"{state.encode(ref, State(head))}\n{baseline(ref, head, note)}"


def issue(page: Page, current: State, texts: Mapping[str, Sequence[str]]) -> str:
    """The tracking issue's body after a sweep: the state `current`, then the page, clipped
    to what the body has left."""
    marker = state.encode(page.ref, current)
    return f"{marker}\n{body(page, texts, BODY_LIMIT - len(marker) - 100)}"


def body(page: Page, texts: Mapping[str, Sequence[str]], limit: int = BODY_LIMIT - 4_000) -> str:
    """The page, within `limit` characters (what the state marker leaves of GitHub's 65,536)."""
    sections = [_head(page), table(page), _environment(page.environment),
                _details(page.open, texts), _notes(page.notes)]
    text = "\n\n".join(s for s in sections if s)
    return clip(text, max(limit, 1_000))


def table(page: Page) -> str:
    """The regressions as one table (also the job summary)."""
    rows = [(("🆕" if r.since == page.head else "⏳"), r, False) for r in page.open]
    rows += [("✅", r, True) for r in page.fixed]
    if not rows:
        return ""
    header = ("| | finding | where | brought by | pull request | author | owners |\n"
              "|---|---|---|---|---|---|---|")
    lines = [header] + [_row(icon, r, struck, page.change) for icon, r, struck in rows[:MAX_ROWS]]
    if len(rows) > MAX_ROWS:
        lines.append(f"\n*…and {len(rows) - MAX_ROWS} more*")
    return "\n".join(lines)


def closing(ref: str, head: str) -> str:
    return (f"Every regression on {code(ref)} is fixed as of {head[:12]}: closing. The next "
            "sweep reopens this issue if a new one lands.")


def summary(page: Page) -> str:
    """The job summary: the headline, the table and the environment section."""
    return "\n\n".join(s for s in (_head(page), table(page), _environment(page.environment)) if s)


def _head(page: Page) -> str:
    commits = f"{page.commits} commit{'s' * (page.commits != 1)}"
    new = sum(1 for r in page.open if r.since == page.head)
    state = (f"**{len(page.open)} open regression{'s' * (len(page.open) != 1)}** ({new} new)"
             if page.open else "**No open regression**")
    fixed = f" {len(page.fixed)} fixed since the last sweep." if page.fixed else ""
    return (f"## reviewbot: regressions on {code(page.ref)}\n\n"
            f"Swept {page.head[:12]} against the last sweep {page.base[:12]} ({commits}). "
            f"{state}.{fixed}")


def _cell(text: str) -> str:
    return escape(" ".join(text.split())).replace("|", "\\|")


def _code_cell(text: str) -> str:
    """A name as a code span inside a table row: GFM splits cells at a pipe even in code."""
    return code(text).replace("|", "\\|")


def _row(icon: str, r: Regression, struck: bool, change: str = "#") -> str:
    severity = SEVERITY_ICONS[Severity.parse(r.severity)]
    what = f"{severity} {_code_cell(r.tool)} {_code_cell(r.rule)}: {_cell(clip(r.message, 160))}"
    where = _code_cell(f"{r.path}:{r.line}")
    commit = r.commit[:12] if r.commit else "not attributed"
    pull = f"{change}{r.pull}" if r.pull is not None else "pushed directly"
    author = _cell(r.author or "unknown")
    if r.pull_author:
        author += f" (pull request by {_cell('@' + r.pull_author)})"  # named, not pinged
    owners = ", ".join(_cell(o) for o in r.owners) or "—"
    cells = [what, where, commit, pull, author, owners]
    if struck:
        cells = [f"~~{c}~~" for c in cells]
        cells[2] += " fixed"
    return f"| {icon} | " + " | ".join(cells) + " |"


def _environment(env: Environment) -> str:
    if not env.config_paths and not env.tools:
        return ""
    causes = [f"with {escape(t.name)} {escape(t.after)} (was {escape(t.before)})" for t in env.tools]
    if env.config_paths:
        causes.append("with the new configuration (" +
                      ", ".join(code(p) for p in env.config_paths) + ")")
    head = (f"### New {' and '.join(causes)}\n\nNot regressions of the code, attributed to no "
            "commit: what the new tools or settings report on code that did not change.")
    if not env.findings:
        return f"{head}\n\nNothing new."
    items = [f"- {code(f'{f.path}:{f.line}')} · {SEVERITY_ICONS[f.severity]} {code(f.tool)} {code(f.rule)}: "
             f"{_cell(clip(f.message, 200))}" for f in env.findings[:MAX_ENVIRONMENT]]
    if len(env.findings) > MAX_ENVIRONMENT:
        items.append(f"- …and {len(env.findings) - MAX_ENVIRONMENT} more")
    return head + "\n\n" + "\n".join(items)


def finding_of(r: Regression) -> Finding:
    return Finding(r.tool, r.rule, Severity.parse(r.severity), r.message, r.path,
                   Span(r.line, r.column, r.end_line, r.end_column))


def _details(open_: Sequence[Regression], texts: Mapping[str, Sequence[str]]) -> str:
    parts = []
    for r in open_[:MAX_FRAMES]:
        shown = frame(texts.get(r.path, ()), finding_of(r))
        brought = f" — brought by {r.commit[:12]}" if r.commit else ""
        parts.append(f"#### {code(f'{r.path}:{r.line}')} · {code(r.tool)} {code(r.rule)}{brought}\n\n"
                     f"{escape(clip(r.message, 2_000))}" + (f"\n\n{shown}" if shown else ""))
    return "### Open regressions\n\n" + "\n\n".join(parts) if parts else ""


def _notes(notes: Sequence[str]) -> str:
    return "\n".join(f"> {escape(n)}" for n in notes)
