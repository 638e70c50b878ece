"""A CI event's payload file, read as JSON: the one place that says what went wrong with it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bot.errors import BotError, Exit


def read(path: str, name: str) -> Any:
    """The JSON document at `path`; `name` says what it is in the error (exit status 2)."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise BotError(f"cannot read {name} {path}: {exc.strerror}", Exit.USAGE) from exc
    except ValueError as exc:
        raise BotError(f"{name} {path} is not JSON: {exc}", Exit.USAGE) from exc
