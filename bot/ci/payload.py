"""A CI event's payload: its file read as JSON, and its fields read with a message that names
the field (GitHub's and Gitea's webhook payloads share these shapes)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bot.ci import variables
from bot.errors import BotError, Exit

SHA = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")


def read(path: str, name: str) -> Any:
    """The JSON document at `path`; `name` says what it is in the error (exit status 2)."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise BotError(f"cannot read {name} {path}: {exc.strerror}", Exit.USAGE) from exc
    except ValueError as exc:
        raise BotError(f"{name} {path} is not JSON: {exc}", Exit.USAGE) from exc


def event(env: Mapping[str, str], where: str) -> tuple[str, Any]:
    """The event's name and payload from GITHUB_EVENT_NAME and GITHUB_EVENT_PATH (GitHub's and
    Gitea's runners set both); `where` completes the message when they are not set."""
    name = variables.optional(env, "GITHUB_EVENT_NAME", variables.NAME)
    path = variables.optional(env, "GITHUB_EVENT_PATH", variables.FILE)
    if not name:
        raise BotError(f"GITHUB_EVENT_NAME is not set: `reviewbot ci` runs inside {where}",
                       Exit.USAGE)
    if not path:
        raise BotError("GITHUB_EVENT_PATH is not set: the event payload is needed", Exit.USAGE)
    return name, read(path, "the event payload")


def refuse_target(name: str, hint: str) -> None:
    """`pull_request_target` runs with a write token and the base's workflow: reviewbot runs
    the pull request's linters, so it refuses that event (GitHub's and Gitea's runners)."""
    if name == "pull_request_target":
        raise BotError("`reviewbot` refuses pull_request_target: it runs the pull request's "
                       "linters, which must not see a write token; " + hint, Exit.USAGE)


def field(obj: Any, key: str, kind: type, prefix: str = "", event: str = "") -> Any:
    """`obj[key]`, of type `kind`; BotError (usage) naming `prefix + key` otherwise."""
    if not isinstance(obj, dict):
        raise BotError(f"malformed {event} event: expected an object around `{prefix}{key}`",
                       Exit.USAGE)
    value = obj.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise BotError(f"malformed {event} event: `{prefix}{key}` is missing or not "
                       f"{'an object' if kind is dict else kind.__name__}", Exit.USAGE)
    return value


def sha(obj: dict[str, Any], where: str, event: str) -> str:
    """`obj["sha"]`, a commit sha; BotError (usage) naming `where` otherwise."""
    value = obj.get("sha")
    if not isinstance(value, str) or not SHA.fullmatch(value):
        raise BotError(f"malformed {event} event: `{where}` is not a commit sha", Exit.USAGE)
    return value


def optional(obj: dict[str, Any], key: str, kind: type, prefix: str = "", event: str = "",
             *, empty: bool = True) -> Any:
    """`obj[key]` when it is there and not null, of type `kind` (`empty`: a string may be "");
    None when absent or null; BotError (usage) naming `prefix + key` when it is there but not
    of that type: a malformed field is refused, never read as if it were absent."""
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool) \
            or (not empty and value == ""):
        what = "an object" if kind is dict else f"a non-empty {kind.__name__}" if not empty \
            else kind.__name__
        raise BotError(f"malformed {event} event: `{prefix}{key}` is not {what}", Exit.USAGE)
    return value


def one_of(obj: dict[str, Any], key: str, values: tuple[str, ...], prefix: str,
           event: str) -> str:
    """`obj[key]`, one of `values`; BotError (usage) naming `prefix + key` otherwise."""
    value = obj.get(key)
    if value not in values:
        raise BotError(f"malformed {event} event: `{prefix}{key}` is missing or not one of "
                       f"{', '.join(values)}", Exit.USAGE)
    return str(value)


def user(obj: dict[str, Any], key: str, name: str, prefix: str = "", event: str = ""
         ) -> tuple[dict[str, Any], str | None]:
    """The user object at `obj[key]` ({} when absent or null) and its `name` field (`login`,
    `username`; None when absent or null); BotError (usage) when either is malformed."""
    found = optional(obj, key, dict, prefix, event) or {}
    return found, optional(found, name, str, f"{prefix}{key}.", event, empty=False)


def is_bot(user: dict[str, Any], login: str | None, prefix: str, event: str) -> bool:
    """GitHub's rule for a bot account: `type` "Bot", or a login ending in `[bot]` (an app's
    account, whatever type a payload gives it)."""
    kind = optional(user, "type", str, prefix, event)
    return kind == "Bot" or (login or "").endswith("[bot]")


def action(payload: dict[str, Any], event: str) -> str:
    """The event's `action` ("" for an event that has none)."""
    return str(optional(payload, "action", str, event=event) or "")


def repository(payload: dict[str, Any], event: str) -> str | None:
    """`repository.full_name`, which an event that needs nothing may lack."""
    repo = optional(payload, "repository", dict, event=event) or {}
    found = optional(repo, "full_name", str, "repository.", event, empty=False)
    return str(found) if found else None


def branch(ref: str | None) -> str | None:
    return ref.removeprefix("refs/heads/") if ref else None
