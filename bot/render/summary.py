"""The sticky summary comment (and the Actions job summary): one page about the whole review.

Pure. Counts per scope, the gate, what went inline and what was folded and why, findings the
change caused outside the diff with their code frames, pre-existing findings collapsed, the
merge base compared against, and every tool with its version and status.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.gate import Gate
from bot.model import ReviewResult, Scope, Verdict
from bot.placement import Item, Placed, priority
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

MAX_FRAMES = 25  # entries shown with a code frame; the rest are one line each
MAX_ENTRIES = 200
STATUS_ICONS = {"ok": "✅", "missing": "⚠️", "failed": "❌", "timeout": "⏱️", "skipped": "⏭️"}


def render(result: ReviewResult, placed: Placed, gate: Gate,
           texts: Mapping[str, Sequence[str]], *, marker: bool = True,
           limit: int = BODY_LIMIT - 500) -> str:
    sections = [
        _head(result, gate),
        _counts(result),
        _inline(placed),
        _folded([i for i in placed.items if i.kind == "summary"], texts),
        _elsewhere([v for v in result.findings
                    if v.scope == "introduced" and v.where == "elsewhere"], texts),
        _unclassified([v for v in result.findings if v.scope == "unclassified"], texts),
        _preexisting([v for v in result.findings if v.scope == "preexisting"]),
        _tools(result),
        _notes(result),
    ]
    text = "\n\n".join(s for s in sections if s)
    if len(text) > limit:
        text = clip(text, limit) + "\n\n*(summary truncated: see the check run or the SARIF file)*"
    return f"{SUMMARY_MARKER}\n{text}" if marker else text


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
    scopes: list[Scope] = ["introduced", "changed", "preexisting", "fixed"]
    if result.count("unclassified"):
        scopes.append("unclassified")
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


def _entries(pairs: Sequence[tuple[Verdict, str]], texts: Mapping[str, Sequence[str]]) -> str:
    rows = [_entry(v, texts, why, index < MAX_FRAMES) for index, (v, why) in
            enumerate(pairs[:MAX_ENTRIES])]
    if len(pairs) > MAX_ENTRIES:
        rows.append(f"- … and {len(pairs) - MAX_ENTRIES} more (see the check run or SARIF)")
    return "\n".join(rows)


def _folded(items: Sequence[Item], texts: Mapping[str, Sequence[str]]) -> str:
    if not items:
        return ""
    body = _entries([(i.verdict, i.reason) for i in items], texts)
    return f"### Not commented inline ({len(items)})\n\n{body}"


def _elsewhere(verdicts: Sequence[Verdict], texts: Mapping[str, Sequence[str]]) -> str:
    if not verdicts:
        return ""
    ordered = sorted(verdicts, key=priority)
    body = _entries([(v, "") for v in ordered], texts)
    return (f"### Caused outside the diff ({len(verdicts)})\n\nThese lines did not change, "
            f"but the change broke them.\n\n{body}")


def _unclassified(verdicts: Sequence[Verdict], texts: Mapping[str, Sequence[str]]) -> str:
    if not verdicts:
        return ""
    body = _entries([(v, "") for v in sorted(verdicts, key=priority)], texts)
    return (f"### Without a baseline ({len(verdicts)})\n\nThe tool failed at one revision, so "
            f"these could not be compared with the merge base.\n\n{body}")


def _preexisting(verdicts: Sequence[Verdict]) -> str:
    if not verdicts:
        return ""
    rows = [f"- {location(v.finding)} · {code(v.finding.tool)} {code(v.finding.rule)}: "
            f"{inline(clip(v.finding.message, 200))}" + (" *(on a touched line)*" if v.touched else "")
            for v in sorted(verdicts, key=priority)[:MAX_ENTRIES]]
    if len(verdicts) > MAX_ENTRIES:
        rows.append(f"- … and {len(verdicts) - MAX_ENTRIES} more")
    return (f"<details><summary>📌 {len(verdicts)} pre-existing finding"
            f"{'s' * (len(verdicts) != 1)} (already at the merge base; never gated)</summary>\n\n"
            + "\n".join(rows) + "\n\n</details>")


def _tools(result: ReviewResult) -> str:
    if not result.tools:
        return "**Tools:** none applied (no linter configuration found)."
    rows = [f"| {_cell(t.name)} | {_cell(t.version or '?')} | {STATUS_ICONS[t.status]} {t.status} "
            f"| {_note_cell(t.message)} |" for t in result.tools]
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
