"""Markdown for forge comments: one finding's body, its code frame, and the hidden markers.

Pure. The hidden marker `<!-- reviewbot:fp=FP h=DIGEST -->` carries the finding's fingerprint
(which survives line shifts) and a digest of what the comment says, computed without line
numbers: a finding that only moved keeps its digest, so a re-run leaves its comment alone.
"""

from __future__ import annotations

import hashlib
import re
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass, replace

from bot.model import Applicability, Finding, Scope, Severity, Verdict
from bot.render.dialect import Dialect
from bot.render.frame import FrameLine, frame_lines, render_rows
from bot.render.quoting import printable
from bot.render.suggestion import NoSuggestion, Suggestion, block

# A body length every forge we publish to accepts, for pages that are not tied to one forge;
# a comment on a forge is bounded by its own `Dialect.body_limit`.
BODY_LIMIT = 65_536
MESSAGE_LIMIT = 4_000
LINE_LIMIT = 300  # characters kept per frame line
SUMMARY_MARKER = "<!-- reviewbot:summary -->"
_MARKER = re.compile(r"<!-- reviewbot:fp=([A-Za-z0-9._:+/=~-]{1,200}) h=([0-9a-f]{1,64}) -->")
_SAFE_FP = re.compile(r"[A-Za-z0-9._:+/=~-]{1,200}")

BADGES = {"introduced": "🆕 **Introduced**", "changed": "🔁 **Changed**",
          "preexisting": "📌 **Pre-existing**", "fixed": "✅ **Fixed**",
          "unclassified": "❔ **Unclassified**"}
SEVERITY_ICONS = {Severity.ERROR: "🔴 error", Severity.WARNING: "🟠 warning",
                  Severity.INFO: "🔵 info"}


@dataclass(frozen=True)
class Body:
    """A comment's body: its text, the fingerprint its marker carries and the digest of what
    it says (`comment_body`)."""

    text: str
    fingerprint: str
    digest: str


@dataclass(frozen=True)
class Marker:
    fingerprint: str
    digest: str


def marker(fingerprint: str, digest: str) -> str:
    return f"<!-- reviewbot:fp={safe_fingerprint(fingerprint)} h={digest} -->"


def parse_marker(body: str) -> Marker | None:
    found = _MARKER.search(body)
    return Marker(found.group(1), found.group(2)) if found else None


def safe_fingerprint(fingerprint: str) -> str:
    """Fingerprints go inside an HTML comment: anything unusual is replaced by its hash."""
    if _SAFE_FP.fullmatch(fingerprint) and "--" not in fingerprint:
        return fingerprint
    return "h" + hashlib.sha256(fingerprint.encode()).hexdigest()[:32]


def escape(text: str) -> str:
    """Tool text (plain text, never Markdown) as an inert paragraph: its code spans kept, its
    line breaks kept, and nothing else it contains acts. No HTML, no link or image, no emphasis,
    no `@mention`, `#123` or `GH-1` reference (a zero-width space follows the sign), and no
    line that starts a block (heading, list, quote, fence, table, indented code). Blank lines
    are dropped, so the text stays one paragraph."""
    out = "".join(part if is_code else _plain(part) for is_code, part in _code_spans(text))
    lines = (_line_start(line) for line in out.split("\n") if line.strip())
    return "\n".join(lines)


def inline(text: str) -> str:
    """Tool text as inert Markdown on one line (a list entry, a quote, a sentence)."""
    return escape(" ".join(text.split()))


def code(text: str) -> str:
    """`text` as one inert code span: control characters escaped, whitespace folded, a fence
    longer than any backtick run inside (GitHub links nothing in code)."""
    flat = " ".join(printable(text).split())
    if not flat:
        return ""
    mark = "`" * (max((len(r) for r in re.findall(r"`+", flat)), default=0) + 1)
    pad = " " if flat[0] == "`" or flat[-1] == "`" else ""
    return f"{mark}{pad}{flat}{pad}{mark}"


_NEWLINES = re.compile(r"\r\n?")
# GitHub links `@user`, `#12`, `GH-12`; GitLab also `!12` (a merge request).
_REFERENCE = re.compile(r"[@#](?=[A-Za-z0-9])|!(?=[0-9])|\bGH(?=-[0-9])", re.IGNORECASE)
_PLAIN = str.maketrans({"\\": "\\\\", "&": "&amp;", "<": "&lt;", ">": "&gt;", "[": "\\[",
                        "]": "\\]", "*": "\\*", "~": "\\~", "`": "&#96;"})
# An underscore inside a word (`line_code`) never opens emphasis: only the others are escaped.
_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")
_BLOCK_START = re.compile(r"([#>+\-=|:])|([0-9]{1,9})([.)])(?=[ \t]|$)")


def _code_spans(text: str) -> list[tuple[bool, str]]:
    """`text` cut into plain parts and code spans as CommonMark pairs backtick runs (an opener
    closes at the next run of its length). A code span's line breaks become spaces, as
    CommonMark shows them, so that no block can start inside it."""
    text = _NEWLINES.sub("\n", text)
    runs = [(m.start(), m.end()) for m in re.finditer(r"`+", text)]
    parts: list[tuple[bool, str]] = []
    done = index = 0
    while index < len(runs):
        start, end = runs[index]
        closer = next((j for j in range(index + 1, len(runs))
                       if runs[j][1] - runs[j][0] == end - start), None)
        if closer is None:
            index += 1
            continue
        parts.append((False, text[done:start]))
        done = runs[closer][1]
        parts.append((True, text[start:done].replace("\n", " ")))
        index = closer + 1
    parts.append((False, text[done:]))
    return parts


def _plain(text: str) -> str:
    """Plain text: every character that could act, written so that it shows as itself."""
    return _UNDERSCORE.sub(r"\\_", unlinked(text).translate(_PLAIN))


def unlinked(text: str) -> str:
    """`text` with a zero-width space after each `@`, `#`, `!` or `GH` a forge would link."""
    return _REFERENCE.sub(lambda m: m.group(0) + "\u200b", text)


def _line_start(line: str) -> str:
    """A line that cannot start a block: leading whitespace becomes no-break spaces (not
    Markdown indentation), and a block marker after it is backslash-escaped."""
    body = line.lstrip(" \t")
    lead = line[: len(line) - len(body)].replace("\t", "    ").replace(" ", "\u00a0")
    found = _BLOCK_START.match(body)
    if found and found.group(2):
        body = f"{found.group(2)}\\{body[found.end(2):]}"
    elif found:
        body = "\\" + body
    return lead + body


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def rule_link(finding: Finding) -> str:
    label = f"{code(finding.tool)} {code(finding.rule)}".strip()
    url = _safe_url(finding.url)
    return f"[{label}]({url})" if url and label else label


def _safe_url(url: str | None) -> str:
    """An http(s) link destination that nothing in it can end early; "" for anything else."""
    if not url or not re.match(r"https?://[^\s]", url, re.IGNORECASE):
        return ""
    return urllib.parse.quote(url, safe="/:?#[]@!$&'*+,;=%-._~")


def headline(verdict: Verdict) -> str:
    """Badge, severity and rule: the first line of a comment or a summary entry."""
    finding = verdict.finding
    badge = BADGES[verdict.scope]
    if verdict.scope is Scope.CHANGED and verdict.reasons:
        badge += f" ({_changed_why(verdict)})"
    return f"{badge} · {SEVERITY_ICONS[finding.severity]} · {rule_link(finding)}"


def _changed_why(verdict: Verdict) -> str:
    base = verdict.base
    if verdict.severity_up and base is not None:
        return f"was {base.severity.label}"
    return ", ".join(reason.replace("-", " ") for reason in verdict.reasons)


def frame_rows(lines: Sequence[str], finding: Finding) -> list[FrameLine]:
    """The lines of the file a finding's frame shows: none for a file-level finding or an
    empty file."""
    if finding.file_level or not lines:
        return []
    return frame_lines(lines, finding.span.line, finding.span.end_line)


def fenced(rows: Sequence[FrameLine], finding: Finding, size: int) -> str:
    """The frame of `rows` as a fenced block (each line clipped), or "" when the finding's
    line is not in the file of `size` lines."""
    if not rows or finding.span.line > size + 1:
        return ""
    single = finding.span.end_line == finding.span.line
    clipped = [replace(row, text=clip(row.text, LINE_LIMIT)) for row in rows]
    text = render_rows(clipped, finding.span.line, finding.span.end_line,
                       column=finding.span.column if single else None,
                       end_column=finding.span.end_column if single else None)
    return block(text.split("\n"), "text") if text else ""


def frame(lines: Sequence[str], finding: Finding) -> str:
    """The code frame as a fenced block, or "" when the line is not in the file."""
    return fenced(frame_rows(lines, finding), finding, len(lines))


def frame_digest(lines: Sequence[str], finding: Finding) -> str:
    """What the frame shows, without line numbers."""
    return _rows_digest(frame_rows(lines, finding))


def _rows_digest(rows: Sequence[FrameLine]) -> str:
    return "\n".join(("█" if row.flagged else " ") + row.text for row in rows)


def suggestion_part(result: Suggestion | NoSuggestion | None, dialect: Dialect,
                    anchor: int | None = None) -> str:
    """The suggested fix, fenced as `dialect` wants for a comment on `anchor` (default: the
    first replaced line)."""
    if result is None:
        return ""
    if isinstance(result, NoSuggestion):
        return f"<sub>A fix exists but is not offered here: {inline(result.reason)}.</sub>"
    note = " — review it before applying" if result.applicability is Applicability.UNSAFE else ""
    title = inline(result.description) or "Suggested fix"
    info = dialect.fence(result.start_line, result.end_line,
                         result.start_line if anchor is None else anchor)
    return f"**{title}**{note}\n\n{block(result.lines, info)}"


@dataclass(frozen=True)
class Commented:
    """One finding as its comment shows it: what a comment body is rendered from.

    `lines` are its file's head lines (the file or its excerpt); `fix` is the fix as offered
    where the comment sits; `note` says where the comment sits when it is not on the flagged
    line (file-level); `anchor` is the line the comment sits on (it places a relative
    suggestion fence; default: the first replaced line)."""

    verdict: Verdict
    key: str  # the marker's fingerprint
    lines: Sequence[str]
    fix: Suggestion | NoSuggestion | None = None
    note: str = ""
    anchor: int | None = None


def comment_body(commented: Commented, dialect: Dialect) -> Body:
    """The full body of an inline or file-level comment for one finding, within the
    dialect's body limit; the frame's rows are read once, for the frame and its digest."""
    finding = commented.verdict.finding
    parts = [headline(commented.verdict), escape(clip(finding.message, MESSAGE_LIMIT))]
    if commented.note:
        parts.append(f"<sub>{inline(commented.note)}</sub>")
    rows = frame_rows(commented.lines, finding)
    shown = fenced(rows, finding, len(commented.lines))
    if shown:
        parts.append(shown)
    tail = suggestion_part(commented.fix, dialect, commented.anchor)
    if tail:
        parts.append(tail)
    digest = _digest(parts[0], parts[1], commented.note, _rows_digest(rows), tail)
    text = "\n\n".join(parts)
    room = dialect.body_limit - 200
    if len(text) > room:  # keep the marker: without it a re-run would repost
        text = clip("\n\n".join(parts[:2]), room)
    return Body(f"{text}\n\n{marker(commented.key, digest)}", safe_fingerprint(commented.key),
                digest)


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:16]


def location(finding: Finding) -> str:
    return code(finding.path) if finding.file_level else code(f"{finding.path}:{finding.span.line}")
