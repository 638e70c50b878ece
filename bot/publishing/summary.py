"""The pages about the whole review: the sticky summary comment, the check run's (or commit
status's) report with its annotations, and the CI's job summary, one page rendered three ways.

Pure. Counts per scope, the gate, what went inline and what was folded and why, findings the
change caused outside the diff with their code frames, pre-existing findings collapsed, the
merge base compared against, and every tool with its version and status.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.forges.base import Annotation, StatusReport
from bot.model import ReviewResult, Scope, Verdict
from bot.positions import span_last_line
from bot.publishing.gate import Gate
from bot.publishing.placement import Item, Placed
from bot.render.dialect import ELSEWHERE
from bot.render.markdown import (
    BODY_LIMIT,
    SUMMARY_MARKER,
    clip,
    code,
    frame,
    headline,
    inline,
    location,
    unlinked,
)
from bot.render.order import priority

CHECK_NAME = "reviewbot"
ANNOTATION_MESSAGE_LIMIT = 60_000  # characters of a finding's message kept in an annotation
ANNOTATION_TITLE_LIMIT = 255
SUMMARY_ROOM = 500  # what the summary leaves of a comment's length for its own marker and lists
MAX_FRAMES = 25  # entries shown with a code frame; the rest are one line each
MAX_ENTRIES = 200
STATUS_ICONS = {"ok": "✅", "missing": "⚠️", "failed": "❌", "timeout": "⏱️", "skipped": "⏭️"}


def truncated(elsewhere: str = ELSEWHERE) -> str:
    """The note that ends a summary with no room for everything: where the rest is."""
    return f"*(summary truncated: see {elsewhere})*"


@dataclass(frozen=True)
class Section:
    """A list section: cut between its rows when the page is too long, never inside one (a
    row may hold a fenced frame; `tail` closes what `head` opened)."""

    head: str
    rows: tuple[str, ...]
    tail: str = ""

    def text(self, count: int | None = None) -> str:
        rows = self.rows if count is None else self.rows[:count]
        more = len(self.rows) - len(rows)
        cut = (f"\n- … and {more} more, not shown: the summary is truncated",) if more else ()
        return self.head + "\n".join((*rows, *cut)) + self.tail


def render(result: ReviewResult, placed: Placed, gate: Gate,
           texts: Mapping[str, Sequence[str]], *, marker: bool = True,
           limit: int = BODY_LIMIT - SUMMARY_ROOM, elsewhere: str = ELSEWHERE) -> str:
    top = [_head(result, gate), _counts(result), _inline(placed)]
    lists = [s for s in (
        _folded([i for i in placed.items if i.kind == "summary"], texts),
        _elsewhere([v for v in result.findings
                    if v.scope is Scope.INTRODUCED and v.where == "elsewhere"], texts),
        _unclassified([v for v in result.findings if v.scope is Scope.UNCLASSIFIED], texts),
        _preexisting([v for v in result.findings if v.scope is Scope.PREEXISTING]),
    ) if s is not None]
    bottom = [_tools(result), _notes(result)]
    if len("\n\n".join([*top, *bottom])) > limit // 2:  # tool messages are bounded, not small
        bottom = [_tools(result, brief=True), clip(_notes(result), limit // 8)]
    lead = f"{SUMMARY_MARKER}\n" if marker else ""
    whole = lead + "\n\n".join(s for s in [*top, *(x.text() for x in lists), *bottom] if s)
    if len(whole) <= limit:
        return whole
    note = truncated(elsewhere)
    room = limit - len(lead) - len("\n\n".join([*top, *bottom])) - len(note) - 6
    while True:
        text = lead + "\n\n".join(s for s in [*top, *_fit(lists, room, note), *bottom] if s)
        if len(text) <= limit or room <= 0:
            return text
        room -= len(text) - limit


def _fit(sections: Sequence[Section], room: int, note: str) -> list[str]:
    """The sections within `room` characters: whole while they fit, then the rows of the first
    one that does not, then the truncation note."""
    out: list[str] = []
    for section in sections:
        whole = section.text()
        if len(whole) + 2 <= room:
            out.append(whole)
            room -= len(whole) + 2
            continue
        count = 0
        while count < len(section.rows) and len(section.text(count + 1)) + 2 <= room:
            count += 1
        if count or len(section.text(0)) + 2 <= room:
            out.append(section.text(count))
        out.append(note)
        break
    return out


def _head(result: ReviewResult, gate: Gate) -> str:
    verdict = "❌ **fails**" if gate.failed else "✅ **passes**"
    head = (f"## reviewbot\n\nGate {verdict} (fail level `{gate.fail_level}`). "
            f"Compared `{result.head[:12]}` with the merge base `{result.merge_base[:12]}` "
            f"of {code(result.base_ref)}.")
    if not gate.unchecked:
        return head
    why = ("so the gate fails" if gate.tool_errors == "fail"
           else "reported only (`tool-errors: warn`)")
    rows = "\n".join(f"> - {inline(u)}" for u in gate.unchecked)
    return f"{head}\n\n> **The change could not be fully checked**, {why}:\n{rows}"


def _counts(result: ReviewResult) -> str:
    scopes = [s for s in Scope if s is not Scope.UNCLASSIFIED or result.count(s)]
    header = "| | " + " | ".join(scopes) + " |\n|---|" + "---:|" * len(scopes)
    row = "| findings | " + " | ".join(str(result.count(s)) for s in scopes) + " |"
    return f"{header}\n{row}"


def _inline(placed: Placed) -> str:
    """State, not this run's activity: an unchanged re-run renders the same page."""
    inline = sum(1 for i in placed.items if i.kind == "inline")
    files = sum(1 for i in placed.items if i.kind == "file")
    folded = sum(1 for i in placed.items if i.kind == "summary")
    parts = [f"{inline} inline", f"{files} on files", f"{folded} in this summary only"]
    if placed.resolved:
        parts.append(f"{placed.resolved} thread{'s' * (placed.resolved != 1)} resolved as fixed")
    if placed.unresolvable:
        parts.append(f"{placed.unresolvable} fixed but left open (threads unreadable)")
    return "**Comments:** " + " · ".join(parts)


def _entry(verdict: Verdict, texts: Mapping[str, Sequence[str]], why: str, with_frame: bool) -> str:
    finding = verdict.finding
    line = (f"- {location(finding)} · {headline(verdict)}: "
            f"{inline(clip(finding.message, 500))}" + (f" — *{inline(why)}*" if why else ""))
    shown = frame(texts.get(finding.path, ()), finding) if with_frame else ""
    return f"{line}\n\n" + "\n".join("  " + row for row in shown.split("\n")) if shown else line


def _entries(pairs: Sequence[tuple[Verdict, str]], texts: Mapping[str, Sequence[str]]
             ) -> tuple[str, ...]:
    rows = [_entry(v, texts, why, index < MAX_FRAMES) for index, (v, why) in
            enumerate(pairs[:MAX_ENTRIES])]
    if len(pairs) > MAX_ENTRIES:
        rows.append(f"- … and {len(pairs) - MAX_ENTRIES} more (see the check run or SARIF)")
    return tuple(rows)


def _folded(items: Sequence[Item], texts: Mapping[str, Sequence[str]]) -> Section | None:
    if not items:
        return None
    rows = _entries([(i.verdict, i.reason) for i in items], texts)
    return Section(f"### Not commented inline ({len(items)})\n\n", rows)


def _elsewhere(verdicts: Sequence[Verdict], texts: Mapping[str, Sequence[str]]) -> Section | None:
    if not verdicts:
        return None
    rows = _entries([(v, "") for v in sorted(verdicts, key=priority)], texts)
    return Section(f"### Caused outside the diff ({len(verdicts)})\n\nThese lines did not change, "
                   "but the change broke them.\n\n", rows)


def _unclassified(verdicts: Sequence[Verdict], texts: Mapping[str, Sequence[str]]
                  ) -> Section | None:
    if not verdicts:
        return None
    rows = _entries([(v, "") for v in sorted(verdicts, key=priority)], texts)
    return Section(f"### Without a baseline ({len(verdicts)})\n\nThe tool failed at one revision, "
                   "so these could not be compared with the merge base.\n\n", rows)


def _preexisting(verdicts: Sequence[Verdict]) -> Section | None:
    if not verdicts:
        return None
    rows = [f"- {location(v.finding)} · {code(v.finding.tool)} {code(v.finding.rule)}: "
            f"{inline(clip(v.finding.message, 200))}" + (" *(on a touched line)*" if v.touched else "")
            for v in sorted(verdicts, key=priority)[:MAX_ENTRIES]]
    if len(verdicts) > MAX_ENTRIES:
        rows.append(f"- … and {len(verdicts) - MAX_ENTRIES} more")
    return Section(f"<details><summary>📌 {len(verdicts)} pre-existing finding"
                   f"{'s' * (len(verdicts) != 1)} (already at the merge base; never gated)"
                   "</summary>\n\n", tuple(rows), "\n\n</details>")


def _tools(result: ReviewResult, brief: bool = False) -> str:
    """The tools table; `brief` keeps only the first line of each tool's message."""
    if not result.tools:
        return "**Tools:** none applied (no linter configuration found)."
    rows = [f"| {_cell(t.name)} | {_cell(t.version or '?')} | {STATUS_ICONS[t.status]} {t.status} "
            f"| {_cell(t.message) if brief else _note_cell(t.message)} |" for t in result.tools]
    return "| tool | version | status | note |\n|---|---|---|---|\n" + "\n".join(rows)


def _cell(text: str, limit: int = 200) -> str:
    """One line of tool text as an inert table cell. Every character that could end the cell
    or the row, or open a code span (inside which a pipe would still split the row), becomes
    an entity; whitespace runs, newlines included, become one space."""
    flat = " ".join(clip(text, limit).split())
    html = unlinked(flat).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return html.replace("\\", "&#92;").replace("|", "&#124;").replace("`", "&#96;")


def _note_cell(message: str) -> str:
    """A tool's message in one cell: its first meaningful line, the rest folded under it."""
    lines = [line for line in message.splitlines() if line.strip()]
    if len(lines) <= 1:
        return _cell(lines[0] if lines else "")
    rest = "<br>".join(_cell(line, 300) for line in lines[1:40])
    more = "<br>…" if len(lines) > 40 else ""
    return f"<details><summary>{_cell(lines[0])}</summary>{rest}{more}</details>"


def _notes(result: ReviewResult) -> str:
    notes = list(result.notes)
    if result.unbaselined:
        paths = ", ".join(code(p) for p in sorted(result.unbaselined)[:20])
        notes.append(f"No baseline for {paths}: findings there count as introduced.")
    return "\n".join(f"> {inline(n)}" for n in notes) if notes else ""


def job_summary(result: ReviewResult, placed: Placed, gate: Gate,
                texts: Mapping[str, Sequence[str]]) -> str:
    """The Actions job summary: the same page without the marker (1 MiB cap per step)."""
    return render(result, placed, gate, texts, marker=False, limit=900_000)


def check_report(result: ReviewResult, gate: Gate, placed: Placed,
                 texts: Mapping[str, Sequence[str]]) -> StatusReport:
    """The check run or commit status: the gate as its conclusion, the counts as its title,
    the page without the marker as its text, and the annotations."""
    introduced = result.count(Scope.INTRODUCED) + result.count(Scope.CHANGED)
    title = (f"{'failing' if gate.failed else 'passing'}: {introduced} new or changed finding"
             f"{'s' * (introduced != 1)}, {result.count(Scope.PREEXISTING)} pre-existing")
    if gate.unchecked:
        title += f"; not fully checked: {gate.unchecked[0]}" + (" …" if len(gate.unchecked) > 1 else "")
    body = render(result, placed, gate, texts, marker=False, limit=60_000)
    return StatusReport(CHECK_NAME, result.head, "failure" if gate.failed else "success",
                        title, body, status_annotations(result))


def status_annotations(result: ReviewResult) -> tuple[Annotation, ...]:
    """What the change made worse, worst first (pre-existing findings are noise)."""
    out = []
    for verdict in sorted(result.findings, key=priority):
        if not verdict.scope.commented:
            continue
        f = verdict.finding
        title = f"{f.tool} {f.rule} ({verdict.scope})".strip()
        out.append(Annotation(f.path, f.span.line, max(f.span.line, span_last_line(f.span)),
                              f.severity, title[:ANNOTATION_TITLE_LIMIT],
                              f.message[:ANNOTATION_MESSAGE_LIMIT]))
    return tuple(out)
