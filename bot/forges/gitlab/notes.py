"""What a GitLab note says and where it sits, from values alone. Pure.

GitLab runs a line of a note that starts with `/` followed by a command (`/close`, `/merge`,
`/label ~x`, …) as a quick action, outside code blocks. The bot's notes quote tool messages
and source lines, so every such line is defused: its slash becomes `&#47;`, which renders as
a slash and runs nothing. A diff note's position names both sides of the line: `new_line`
alone for an added line, `old_line` and `new_line` for an unchanged one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.forges.base import Draft

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_SLASH = re.compile(r"^(\s*)/")


def defuse(body: str) -> str:
    """`body` with no line outside a fenced code block starting with a slash."""
    out = []
    fence: str | None = None
    for line in body.split("\n"):
        opened = _FENCE.match(line)
        if fence is None:
            if opened:
                fence = opened.group(1)
            else:
                line = _SLASH.sub(r"\1&#47;", line, count=1)
        elif opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence) \
                and not line.strip().lstrip(fence[0]):
            fence = None
        out.append(line)
    return "\n".join(out)


@dataclass(frozen=True)
class Version:
    """The merge request's latest diff version: what positions are relative to."""

    id: int
    base: str
    start: str
    head: str


def position(version: Version, draft: Draft) -> dict[str, Any]:
    """A text position for a line draft; a file position (GitLab 16.4+) for a file draft."""
    out: dict[str, Any] = {"base_sha": version.base, "start_sha": version.start,
                           "head_sha": version.head, "new_path": draft.path,
                           # an added file: old_path is new_path, and no old_line
                           "old_path": draft.old_path or draft.path}
    if draft.line is None:
        return {**out, "position_type": "file"}
    out.update(position_type="text", new_line=draft.line)
    if draft.old_line is not None:
        out["old_line"] = draft.old_line
    return out
