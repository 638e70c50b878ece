"""What the conversation decided, kept in the bot's summary comment between runs: findings
ignored with `/ignore` (who, why) and rewrites staged with `/ast-edit` (who). Pure.

The state is a hidden marker, `<!-- reviewbot:state BASE64 -->`, of JSON: base64 so that no
text a user wrote (a reason, a pattern) can close the HTML comment or show on the page. Only the
bot and people with write access can edit the summary comment, the same people who may run
commands. A marker that does not decode is an empty state, never an error: the next run writes
a good one.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from bot.model import ReviewResult
from bot.render.markdown import escape

MARKER = re.compile(r"<!-- reviewbot:state ([A-Za-z0-9+/=]{1,60000}) -->")
MAX_IGNORED = 200
MAX_STAGED = 20


@dataclass(frozen=True)
class Ignored:
    fingerprint: str
    by: str
    reason: str


@dataclass(frozen=True)
class Staged:
    """A rewrite `/ast-edit` staged, and who staged it."""

    pattern: str
    rewrite: str
    lang: str | None
    by: str


@dataclass(frozen=True)
class Conversation:
    ignored: tuple[Ignored, ...] = ()
    staged: tuple[Staged, ...] = ()
    shown: str | None = None  # the id of the plan the summary shows: what `/apply` commits

    @property
    def fingerprints(self) -> frozenset[str]:
        return frozenset(i.fingerprint for i in self.ignored)

    def ignore(self, item: Ignored) -> Conversation:
        """`item` added, replacing an earlier word on the same finding (the newest stands)."""
        kept = tuple(i for i in self.ignored if i.fingerprint != item.fingerprint)
        return replace(self, ignored=(*kept, item)[-MAX_IGNORED:])

    def stage(self, item: Staged) -> Conversation:
        kept = tuple(s for s in self.staged if (s.pattern, s.rewrite, s.lang) !=
                     (item.pattern, item.rewrite, item.lang))
        return replace(self, staged=(*kept, item)[-MAX_STAGED:])

    def applied(self) -> Conversation:
        """After the plan was committed, nothing is staged any more."""
        return replace(self, staged=(), shown=None)


def read(body: str | None) -> Conversation:
    """The state in a summary comment's body (empty when there is none, or it is damaged)."""
    found = MARKER.search(body or "")
    if found is None:
        return Conversation()
    try:
        data = json.loads(base64.b64decode(found.group(1), validate=True))
    except (binascii.Error, ValueError):
        return Conversation()
    if not isinstance(data, dict):
        return Conversation()
    ignored = tuple(Ignored(str(i["fingerprint"]), str(i["by"]), str(i["reason"]))
                    for i in _records(data.get("ignored"), ("fingerprint", "by", "reason")))
    staged = tuple(Staged(str(s["pattern"]), str(s["rewrite"]),
                          str(s["lang"]) if isinstance(s.get("lang"), str) else None, str(s["by"]))
                   for s in _records(data.get("staged"), ("pattern", "rewrite", "by")))
    shown = data.get("plan")
    return Conversation(ignored[-MAX_IGNORED:], staged[-MAX_STAGED:],
                        shown if isinstance(shown, str) and re.fullmatch(r"[0-9a-f]{6,64}", shown)
                        else None)


def _records(value: Any, keys: Iterable[str]) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        return []
    return [v for v in value if isinstance(v, dict)
            and all(isinstance(v.get(k), str) for k in keys)]


def marker(state: Conversation) -> str:
    if not state.ignored and not state.staged and state.shown is None:
        return ""
    data = {"v": 1, "plan": state.shown,
            "ignored": [{"fingerprint": i.fingerprint, "by": i.by, "reason": i.reason}
                        for i in state.ignored],
            "staged": [{"pattern": s.pattern, "rewrite": s.rewrite, "lang": s.lang, "by": s.by}
                       for s in state.staged]}
    encoded = base64.b64encode(json.dumps(data, separators=(",", ":")).encode()).decode()
    return f"<!-- reviewbot:state {encoded} -->"


def without_ignored(result: ReviewResult, state: Conversation) -> ReviewResult:
    """The result without the findings the conversation ignored: not commented, not gated."""
    if not state.ignored:
        return result
    gone = state.fingerprints
    return replace(result, findings=tuple(v for v in result.findings if v.fingerprint not in gone))


# The closing section's headings: written by `section`, found again by `restated`.
_PLAN = "### Staged changes"
_STAGED = "**Staged with `/ast-edit`:**"
_IGNORED = "### Ignored on this pull request"
_CLOSING = re.compile(rf"^(?:{re.escape(_PLAN)}$|{re.escape(_STAGED)}$|{re.escape(_IGNORED)} \(|"
                      r"<!-- reviewbot:state )", re.MULTILINE)


def section(state: Conversation, plan: str = "") -> str:
    """The summary's part about the conversation: the staged plan, who staged what, and the
    ignored findings with who and why; then the marker that carries it to the next run."""
    parts = []
    if plan:
        parts.append(f"{_PLAN}\n\n{plan}")
    if state.staged:
        rows = "\n".join(f"- `{_code(s.pattern)}` ⇒ `{_code(s.rewrite)}`"
                         + (f" ({escape(s.lang)})" if s.lang else "")
                         + f" — staged by @{escape(s.by)}" for s in state.staged)
        parts.append(f"{_STAGED}\n\n{rows}")
    if state.ignored:
        rows = "\n".join(f"- `{_code(i.fingerprint)}` — ignored by @{escape(i.by)}: "
                         f"{escape(' '.join(i.reason.split()))}" for i in state.ignored)
        parts.append(f"{_IGNORED} ({len(state.ignored)})\n\n{rows}")
    hidden = marker(state)
    return "\n\n".join(parts + ([hidden] if hidden else []))



def restated(body: str, state: Conversation) -> str:
    """The summary `body` with its closing section (the staged plan, the staged rewrites, the
    ignored findings and the marker) replaced by `state`'s, which shows no plan: the plan was
    of the head the summary reviewed. Pure."""
    found = _CLOSING.search(body)
    kept = (body[:found.start()] if found else body).rstrip()
    closing = section(state)
    return f"{kept}\n\n{closing}" if closing else kept

def _code(text: str) -> str:
    """Inline code that a backtick in the text cannot end early."""
    return " ".join(text.replace("`", "\u02cb").split())[:300]
