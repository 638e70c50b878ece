"""Review policy: where each finding goes (inline, file-level comment, summary) and why.

Pure and forge-neutral: what differs between forges comes in as their `Dialect`. A finding
is only placed inline on head lines inside a hunk of the locally computed diff (where GitHub
and GitLab accept a comment), so one bad line can never make the forge refuse a whole
review. Caps apply to new comments; what does not fit goes to the summary with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from bot.model import FileChange, ReviewResult, Scope, Verdict
from bot.positions import span_last_line
from bot.publishing.placement import Item
from bot.render.dialect import Dialect
from bot.render.markdown import Commented, comment_body, safe_fingerprint
from bot.render.order import priority
from bot.render.suggestion import NoSuggestion, Suggestion, suggest

MULTI_LINE = 5  # a finding spanning up to this many more lines is commented as a range


@dataclass(frozen=True)
class Policy:
    max_inline: int = 50  # inline comments on the PR (earlier ones count)
    max_file: int = 10  # file-level comments on the PR


def place(result: ReviewResult, texts: Mapping[str, Sequence[str]],
          policy: Policy = Policy(), *, dialect: Dialect) -> tuple[Item, ...]:
    """Every introduced (in the diff) and changed finding, placed; caps are applied later."""
    changes = {change.path: change for change in result.changes}
    candidates = sorted((v for v in result.findings if v.scope.commented
                         and not (v.scope is Scope.INTRODUCED and v.where == "elsewhere")),
                        key=priority)
    keys = unique_keys(candidates)
    return tuple(_place(v, keys[id(v)], changes.get(v.finding.path), texts.get(v.finding.path, ()),
                        dialect) for v in candidates)


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
           dialect: Dialect) -> Item:
    finding = verdict.finding
    if change is None or change.status == "deleted":
        return Item(verdict, key, "summary", "its file is not part of this diff")
    fix = suggest(finding.fix, finding.path, lines) if finding.fix else None
    first, last = finding.span.line, span_last_line(finding.span)
    if finding.file_level or change.binary or first not in change.hunk_lines:
        if isinstance(fix, Suggestion):
            fix = NoSuggestion("the line is outside the diff")
        where = "" if finding.file_level else \
            f"Line {first} is outside the lines this change touched, so this comment is on the file."
        body = comment_body(Commented(verdict, key, lines, fix, where), dialect)
        return Item(verdict, key, "file", "outside the diff", body=body, old_path=change.old_path)
    start, end = first, first
    if isinstance(fix, Suggestion):
        if all(n in change.hunk_lines for n in range(fix.start_line, fix.end_line + 1)):
            start, end = fix.start_line, fix.end_line
        else:
            fix = NoSuggestion("the fix reaches lines outside the diff")
    elif last != first and all(n in change.hunk_lines for n in range(first, last + 1)):
        end = min(last, first + MULTI_LINE)
    if not dialect.ranges:  # one anchor line: the first of the range, a suggestion reaches down
        end = start
    body = comment_body(Commented(verdict, key, lines, fix, anchor=end), dialect)
    return Item(verdict, key, "inline", line=end, start_line=start if start < end else None,
                body=body, old_path=change.old_path, old_line=change.base_lines.get(end))


def within_diff(result: ReviewResult, commentable: Mapping[str, frozenset[int]]
                ) -> ReviewResult:
    """The result with its hunks cut to the lines the forge lets a comment sit on (the diff as
    the forge shows it, where that is the word to trust): a file the change does not show is
    dropped, and its findings go to the summary."""
    return replace(result, changes=tuple(
        replace(c, hunk_lines=c.hunk_lines & commentable[c.path])
        for c in result.changes if c.path in commentable))


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


def demote(item: Item, reason: str, lines: Sequence[str], *, dialect: Dialect) -> Item:
    """An inline comment the forge refused becomes a file-level one; a refused file one, a summary."""
    if item.kind == "inline":
        note = f"Posted on the file: the forge refused line {item.line} ({reason})."
        fix = item.verdict.finding.fix
        refused = NoSuggestion("the forge refused the line") if fix else None
        body = comment_body(Commented(item.verdict, item.key, lines, refused, note), dialect)
        return replace(item, kind="file", reason=reason, line=None, start_line=None,
                       old_line=None, body=body)
    return replace(item, kind="summary", reason=f"the forge refused it: {reason}")
