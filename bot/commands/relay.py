"""What the two relay commands share (`bitbucket_relay.py`, `azure_relay.py`): the payload read
from a file or stdin as JSON, the one line when a comment needs no run, and the token from the
environment. Each command keeps its own arguments and its forge's request and start.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bot.errors import BotError, Exit


def add_payload(p: argparse.ArgumentParser, what: str) -> None:
    """The payload argument; `what` names it ("webhook", "service hook")."""
    p.add_argument("payload", help=f"the {what}'s JSON body: a file, or - for stdin")


def payload(source: str, what: str) -> Any:
    """The payload as JSON, from the file `source` or stdin (`-`); BotError (usage) when it
    cannot be read or is not JSON."""
    text = sys.stdin.read() if source == "-" else _read(Path(source), what)
    try:
        return json.loads(text)
    except ValueError as exc:
        raise BotError(f"the {what} payload is not JSON ({exc})", Exit.USAGE) from exc


def nothing(reason: str) -> int:
    """A comment that starts no run: said in one line, and not a failure."""
    print(f"reviewbot: nothing to relay: {reason}", file=sys.stderr)
    return int(Exit.OK)


def token(env: Mapping[str, str], name: str, forge: str, hint: str) -> str:
    """The token in `env[name]`; BotError (usage) with `hint` when there is none."""
    value = env.get(name) or ""
    if not value:
        raise BotError(f"no {forge} token: {hint}", Exit.USAGE)
    return value


def _read(path: Path, what: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BotError(f"{path}: cannot read the {what} payload ({exc})", Exit.USAGE) from exc
