"""What the comment relays of the forges without a comment trigger share (`bitbucket/relay.py`,
`azure/relay.py`): a webhook's comment holds commands when one of its lines starts with the
command prefix, and a payload's fields are read strictly, a missing or mistyped one naming
itself in a usage error (the relay only points; the pipeline reads the comment from the API).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bot.errors import BotError, Exit


def commands(text: Any, prefix: str) -> list[str]:
    """The comment's command lines, stripped (none when `text` is not text)."""
    if not isinstance(text, str):
        return []
    return [line.strip() for line in text.splitlines() if line.lstrip().startswith(prefix)]


@dataclass(frozen=True)
class Fields:
    """Reads a payload's fields; `what` names the payload in the errors ("EVENT webhook")."""

    what: str

    def obj(self, obj: dict[str, Any], key: str, prefix: str = "") -> dict[str, Any]:
        value = obj.get(key)
        if not isinstance(value, dict):
            raise self.malformed(f"`{prefix}{key}` is missing or not an object")
        return value

    def text(self, obj: dict[str, Any], key: str, prefix: str) -> str:
        value = obj.get(key)
        if not isinstance(value, str) or not value:
            raise self.malformed(f"`{prefix}{key}` is missing or not text")
        return value

    def number(self, obj: dict[str, Any], key: str, prefix: str) -> int:
        value = obj.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise self.malformed(f"`{prefix}{key}` is not a positive number")
        return value

    def malformed(self, why: str) -> BotError:
        return BotError(f"malformed {self.what}: {why}", Exit.USAGE)
