"""Review policy: where each finding goes (inline, file-level comment, summary) and why.

Pure and forge-neutral. A finding is only placed inline on head lines inside a hunk of the
locally computed diff (where GitHub and GitLab accept a comment), so one bad line can never
make the forge refuse a whole review. Caps apply to new comments; what does not fit goes to
the summary with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from bot.model import FileChange, ReviewResult, Severity, Verdict
from bot.render.markdown import Body, comment_body, safe_fingerprint
from bot.render.suggestion import NoSuggestion, Suggestion, suggest

Kind = Literal["inline", "file", "summary"]
COMMENTED_SCOPES = ("introduced", "changed")


@dataclass(frozen=True)
class Policy:
    max_inline: int = 50  # inline comments on the PR (earlier ones count)
    max_file: int = 10  # file-level comments on the PR
    fence_info: str = "suggestion"  # GitHub; GitLab passes "suggestion:-0+N" itself


@dataclass(frozen=True)
class Item:
    """One commentable finding and its place."""

    verdict: Verdict
    key: str  # unique, marker-safe fingerprint
    kind: Kind
    reason: str = ""  # why it is not inline
    line: int | None = None  # anchor (last line of the range) for inline comments
    start_line: int | None = None  # first line of a multi-line anchor
    body: Body | None = None


@dataclass(frozen=True)
class Placed:
    """What this run did, for the summary."""

    items: tuple[Item, ...]  # final places (refused comments demoted)
    new: frozenset[str] = frozenset()
    kept: frozenset[str] = frozenset()
    edited: int = 0
    resolved: int = 0  # our threads whose finding is fixed (resolved now or earlier)
    reopened: int = 0
    unresolvable: int = 0  # fixed findings whose threads could not be read


def place(result: ReviewResult, texts: Mapping[str, Sequence[str]],
          policy: Policy = Policy()) -> tuple[Item, ...]:
    """Every introduced (in the diff) and changed finding, placed; caps are applied later."""
    changes = {change.path: change for change in result.changes}
    candidates = [v for v in result.findings if v.scope in COMMENTED_SCOPES
                  and not (v.scope == "introduced" and v.where == "elsewhere")]
    keys = unique_keys(sorted(candidates, key=priority))
    return tuple(_place(v, keys[id(v)], changes.get(v.finding.path), texts.get(v.finding.path, ()),
                        policy) for v in sorted(candidates, key=priority))


def priority(verdict: Verdict) -> tuple[int, int, str, int, int, str]:
    """Worst first, introduced before changed, then by position."""
    f = verdict.finding
    return (-int(f.severity), 0 if verdict.scope == "introduced" else 1, f.path, f.span.line,
            f.span.column, f.rule)


def unique_keys(verdicts: Sequence[Verdict]) -> dict[int, str]:
    """Marker keys: the fingerprint, with `~N` for the Nth finding sharing one."""
    seen: dict[str, int] = {}
    out: dict[int, str] = {}
    for verdict in verdicts:
        base = safe_fingerprint(verdict.fingerprint)
        seen[base] = seen.get(base, 0) + 1
        out[id(verdict)] = base if seen[base] == 1 else f"{base}~{seen[base]}"
    return out


def _place(verdict: Verdict, key: str, change: FileChange | None, lines: Sequence[str],
           policy: Policy) -> Item:
    finding = verdict.finding
    if change is None or change.status == "deleted":
        return Item(verdict, key, "summary", "its file is not part of this diff")
    fix = suggest(finding.fix, finding.path, lines) if finding.fix else None
    first, last = finding.span.line, _last_line(verdict)
    if finding.file_level or change.binary or first not in change.hunk_lines:
        if isinstance(fix, Suggestion):
            fix = NoSuggestion("the line is outside the diff")
        where = "" if finding.file_level else \
            f"Line {first} is outside the lines this change touched, so this comment is on the file."
        body = comment_body(verdict, lines, key, fix, where, policy.fence_info)
        return Item(verdict, key, "file", "outside the diff", body=body)
    start, end = first, first
    if isinstance(fix, Suggestion):
        if all(n in change.hunk_lines for n in range(fix.start_line, fix.end_line + 1)):
            start, end = fix.start_line, fix.end_line
        else:
            fix = NoSuggestion("the fix reaches lines outside the diff")
    elif last != first and all(n in change.hunk_lines for n in range(first, last + 1)):
        end = min(last, first + 5)  # a short multi-line finding is commented as a range
    body = comment_body(verdict, lines, key, fix, "", policy.fence_info)
    return Item(verdict, key, "inline", line=end, start_line=start if start < end else None,
                body=body)


def _last_line(verdict: Verdict) -> int:
    span = verdict.finding.span
    return span.end_line - 1 if span.end_column == 1 and span.end_line > span.line else span.end_line


def cap(items: Sequence[Item], already: frozenset[str], policy: Policy) -> tuple[Item, ...]:
    """Fold comments beyond the caps into the summary.

    The caps bound what the PR shows (earlier comments count), so re-runs do not add another
    batch each time; comments already posted always stay where they are.
    """
    counts = {"inline": 0, "file": 0}
    limits = {"inline": policy.max_inline, "file": policy.max_file}
    out = []
    for item in items:
        if item.kind != "summary":
            counts[item.kind] += 1
            if counts[item.kind] > limits[item.kind] and item.key not in already:
                noun = "inline" if item.kind == "inline" else "file-level"
                item = replace(item, kind="summary",
                               reason=f"over the cap of {limits[item.kind]} {noun} comments")
        out.append(item)
    return tuple(out)


def demote(item: Item, reason: str, policy: Policy, lines: Sequence[str]) -> Item:
    """An inline comment the forge refused becomes a file-level one; a refused file one, a summary."""
    if item.kind == "inline":
        note = f"Posted on the file: the forge refused line {item.line} ({reason})."
        fix = item.verdict.finding.fix
        body = comment_body(item.verdict, lines, item.key,
                            NoSuggestion("the forge refused the line") if fix else None,
                            note, policy.fence_info)
        return replace(item, kind="file", reason=reason, line=None, start_line=None, body=body)
    return replace(item, kind="summary", reason=f"the forge refused it: {reason}")


@dataclass(frozen=True)
class Annotation:
    path: str
    start_line: int
    end_line: int
    level: Literal["notice", "warning", "failure"]
    title: str
    message: str


LEVELS: dict[Severity, Literal["notice", "warning", "failure"]] = {
    Severity.INFO: "notice", Severity.WARNING: "warning", Severity.ERROR: "failure"}


def check_annotations(result: ReviewResult) -> tuple[Annotation, ...]:
    """Check-run annotations: what the change made worse (pre-existing findings are noise)."""
    out = []
    for verdict in sorted(result.findings, key=priority):
        if verdict.scope not in COMMENTED_SCOPES:
            continue
        f = verdict.finding
        end = max(f.span.line, _last_line(verdict))
        title = f"{f.tool} {f.rule} ({verdict.scope})".strip()
        out.append(Annotation(f.path, f.span.line, end, LEVELS[f.severity], title[:255],
                              f.message[:60_000]))
    return tuple(out)
