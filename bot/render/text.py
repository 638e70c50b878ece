"""Terminal output: findings grouped by file with code frames, then a one-line summary.

Everything shown comes from files and tools, so paths are quoted and other text has its control
characters escaped (bot.render.quoting): a name or message never ends a line early or sends
the terminal an escape sequence.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

from bot.git import short
from bot.model import ReviewResult, Scope, Verdict
from bot.render.frame import render_frame
from bot.render.quoting import printable, quote_path

Lines = Callable[[str], Sequence[str]]  # path -> head lines


def _label(v: Verdict) -> str:
    if v.scope is Scope.INTRODUCED:
        return "introduced" + (" (elsewhere: the change broke an untouched line)"
                               if v.where == "elsewhere" else "")
    if v.scope is Scope.CHANGED:
        return f"changed ({', '.join(v.reasons)})"
    if v.scope is Scope.PREEXISTING:
        return "preexisting" + (" (on a line this change touched)" if v.touched else "")
    return "unclassified (no baseline: the tool failed at one revision)"


def _finding(v: Verdict, lines: Sequence[str]) -> str:
    f = v.finding
    head = (f"{quote_path(f.path)}:{f.line}:{f.column}: {f.severity.label} {printable(f.tool)} "
            f"{printable(f.rule)}: {printable(f.message)}")
    extra = [f"    scope: {_label(v)}" + ("  [fixable]" if f.fix else "")]
    if v.base is not None and (v.base.line != f.line or v.base.path != f.path):
        extra.append(f"    was: {quote_path(v.base.path)}:{v.base.line}")
    if f.url:
        extra.append(f"    docs: {printable(f.url)}")
    frame = render_frame(lines, f.line, f.span.end_line, 1, f.column, f.span.end_column)
    body = "\n".join("    " + row for row in frame.splitlines())
    return "\n".join([head, body, *extra]) if frame else "\n".join([head, *extra])


def summary_line(result: ReviewResult) -> str:
    counts = ", ".join(f"{result.count(s)} {s}" for s in Scope if s is not Scope.UNCLASSIFIED
                       or result.count(s))
    tools = ", ".join(printable(f"{t.name} {t.version or ''}".strip())
                      + ("" if t.status == "ok" else f" ({t.status})")
                      for t in result.tools) or "no tools"
    return (f"{counts} | {tools} | against merge base {short(result.merge_base)} "
            f"({printable(result.base_ref)})")


def _problem(name: str, status: str, message: str) -> str:
    """A tool's problem: the first line after its name, the rest of its output indented
    beneath it, so a stderr tail stays readable and cannot pass for a finding."""
    lines = [line for line in message.splitlines() if line.strip()] or [""]
    first = f"! {printable(name)}: {status}: {printable(lines[0])}".rstrip()
    return "\n".join([first, *(f"    {printable(line)}" for line in lines[1:])])


def render(result: ReviewResult, lines: Lines, show_preexisting: bool = False) -> str:
    shown = [v for v in result.findings
             if v.scope.shown or (show_preexisting and v.scope is Scope.PREEXISTING)]
    by_file: dict[str, list[Verdict]] = defaultdict(list)
    for v in shown:
        by_file[v.finding.path].append(v)
    out: list[str] = []
    for path in sorted(by_file):
        file_lines = lines(path)
        out.append(f"── {quote_path(path)}")
        out += [_finding(v, file_lines) + "\n" for v in by_file[path]]
    problems = [t for t in result.tools if t.status != "ok"]
    for t in problems:
        out.append(_problem(t.name, t.status, t.message))
    out += [f"note: {printable(n)}" for n in result.notes]
    # What a tool that ran well left out on purpose (gopls beside golangci-lint).
    out += [f"note: {printable(t.name)}: {printable(t.message)}" for t in result.tools
            if t.status == "ok" and t.message]
    hidden = result.count(Scope.PREEXISTING) if not show_preexisting else 0
    if hidden:
        out.append(f"({hidden} preexisting finding(s) not listed; --show-preexisting lists them)")
    out.append(summary_line(result))
    return "\n".join(out) + "\n"
