"""Markdown for forge comments: one finding's body, its code frame, and the hidden markers.

Pure. The hidden marker `<!-- reviewbot:fp=FP h=DIGEST -->` carries the finding's fingerprint
(which survives line shifts) and a digest of what the comment says, computed without line
numbers: a finding that only moved keeps its digest, so a re-run leaves its comment alone.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.lineview import LineView
from bot.model import Finding, Severity, Verdict
from bot.placement import Body, Dialect
from bot.render.frame import frame_lines, render_frame
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
    """Tool text as inert markdown: no HTML, no @mentions, code spans kept verbatim."""
    parts = re.split(r"(`[^`\n]+`)", text)
    out = []
    for index, part in enumerate(parts):
        if index % 2:
            out.append(part)
            continue
        part = part.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        out.append(part.replace("@", "@\u200b"))
    return "".join(out)


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def rule_link(finding: Finding) -> str:
    label = f"`{finding.tool}` `{finding.rule}`" if finding.rule else f"`{finding.tool}`"
    return f"[{label}]({finding.url})" if finding.url else label


def headline(verdict: Verdict) -> str:
    """Badge, severity and rule: the first line of a comment or a summary entry."""
    finding = verdict.finding
    badge = BADGES[verdict.scope]
    if verdict.scope == "changed" and verdict.reasons:
        badge += f" ({_changed_why(verdict)})"
    return f"{badge} · {SEVERITY_ICONS[finding.severity]} · {rule_link(finding)}"


def _changed_why(verdict: Verdict) -> str:
    base = verdict.base
    if verdict.severity_up and base is not None:
        return f"was {base.severity.label}"
    return ", ".join(reason.replace("-", " ") for reason in verdict.reasons)


class _Clipped(LineView):
    """`lines`, each clipped as it is read: a frame reads a few lines, never the whole file
    (one pass per finding over a large file would cost more than the review)."""

    def __init__(self, lines: Sequence[str]) -> None:
        self._lines = lines

    def __len__(self) -> int:
        return len(self._lines)

    def line(self, position: int) -> str:
        return clip(self._lines[position].rstrip("\r\n"), LINE_LIMIT)


def frame(lines: Sequence[str], finding: Finding) -> str:
    """The code frame as a fenced block, or "" when the line is not in the file."""
    if finding.file_level or not lines or finding.span.line > len(lines) + 1:
        return ""
    single = finding.span.end_line == finding.span.line
    text = render_frame(_Clipped(lines), finding.span.line, finding.span.end_line,
                        column=finding.span.column if single else None,
                        end_column=finding.span.end_column if single else None)
    return block(text.split("\n"), "text") if text else ""


def frame_digest(lines: Sequence[str], finding: Finding) -> str:
    """What the frame shows, without line numbers."""
    if finding.file_level or not lines:
        return ""
    rows = frame_lines(lines, finding.span.line, finding.span.end_line)
    return "\n".join(("█" if row.flagged else " ") + row.text for row in rows)


def suggestion_part(result: Suggestion | NoSuggestion | None, dialect: Dialect,
                    anchor: int | None = None) -> str:
    """The suggested fix, fenced as `dialect` wants for a comment on `anchor` (default: the
    first replaced line)."""
    if result is None:
        return ""
    if isinstance(result, NoSuggestion):
        return f"<sub>A fix exists but is not offered here: {escape(result.reason)}.</sub>"
    note = " — review it before applying" if result.applicability == "unsafe" else ""
    title = escape(result.description) or "Suggested fix"
    info = dialect.fence(result.start_line, result.end_line,
                         result.start_line if anchor is None else anchor)
    return f"**{title}**{note}\n\n{block(result.lines, info)}"


def comment_body(verdict: Verdict, lines: Sequence[str], fingerprint: str,
                 suggestion: Suggestion | NoSuggestion | None = None,
                 note: str = "", *, dialect: Dialect, anchor: int | None = None) -> Body:
    """The full body of an inline or file-level comment for one finding, within the
    dialect's body limit.

    `note` says where the comment sits when it is not on the flagged line (file-level);
    `anchor` is the line the comment sits on (it places a relative suggestion fence).
    """
    finding = verdict.finding
    parts = [headline(verdict), escape(clip(finding.message, MESSAGE_LIMIT))]
    if note:
        parts.append(f"<sub>{escape(note)}</sub>")
    shown = frame(lines, finding)
    if shown:
        parts.append(shown)
    tail = suggestion_part(suggestion, dialect, anchor)
    if tail:
        parts.append(tail)
    digest = _digest(parts[0], parts[1], note, frame_digest(lines, finding), tail)
    text = "\n\n".join(parts)
    room = dialect.body_limit - 200
    if len(text) > room:  # keep the marker: without it a re-run would repost
        text = clip("\n\n".join(parts[:2]), room)
    return Body(f"{text}\n\n{marker(fingerprint, digest)}", safe_fingerprint(fingerprint), digest)


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:16]


def location(finding: Finding) -> str:
    return f"`{finding.path}`" if finding.file_level else f"`{finding.path}:{finding.span.line}`"
