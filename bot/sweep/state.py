"""The sweep's state, kept in a hidden marker in the tracking issue's body. Pure.

    <!-- reviewbot:sweep ref=main state=BASE64URL(ZLIB(JSON)) -->

The JSON holds the last swept sha, the tool versions of that sweep and every open regression
(enough to show it again when its file is not analysed by a later sweep). Compressed, so
that a hundred regressions fit in one issue body; base64 keeps `-->` in a finding's message
from ending the comment early.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

VERSION = 1
MESSAGE_KEPT = 300  # characters of a message kept in the state
MAX_STATE = 4 * 1024 * 1024  # bytes a state may inflate to (an edited marker is untrusted)
PREFIX = "<!-- reviewbot:sweep"
_SAFE_REF = re.compile(r"[A-Za-z0-9._/+]{1,100}")
_STATE = re.compile(r"<!-- reviewbot:sweep ref=(\S+) state=([A-Za-z0-9_=-]*) -->")


@dataclass(frozen=True)
class Regression:
    """One open regression: the finding at the head where it was last seen, and who brought it."""

    fingerprint: str
    tool: str
    rule: str
    severity: str  # a Severity label
    message: str
    path: str
    line: int
    end_line: int
    column: int
    end_column: int
    commit: str | None  # the commit that introduced it; None: not attributed
    author: str | None = None  # the commit's author (git)
    pull: int | None = None  # the commit's pull request
    pull_author: str | None = None  # who opened that pull request (forge login)
    owners: tuple[str, ...] = ()  # CODEOWNERS of the path
    since: str = ""  # the sweep head where it was first reported


@dataclass(frozen=True)
class State:
    sha: str
    tools: Mapping[str, str] = field(default_factory=dict)  # tool -> version at that sweep
    open: tuple[Regression, ...] = ()


def ref_key(ref: str) -> str:
    """The branch as the marker names it: anything unusual (`--` included) is hashed."""
    if _SAFE_REF.fullmatch(ref) and "--" not in ref:
        return ref
    return "h" + hashlib.sha256(ref.encode()).hexdigest()[:24]


def marker_prefix(ref: str) -> str:
    """What finds the tracking issue of `ref` among the labelled issues."""
    return f"{PREFIX} ref={ref_key(ref)} "


def encode(ref: str, state: State) -> str:
    data = {"v": VERSION, "sha": state.sha, "tools": dict(sorted(state.tools.items())),
            "open": [_regression_json(r) for r in state.open]}
    raw = zlib.compress(json.dumps(data, separators=(",", ":")).encode(), 9)
    blob = base64.urlsafe_b64encode(raw).decode()
    return f"{marker_prefix(ref)}state={blob} -->"


def decode(body: str, ref: str) -> State | None:
    """The state in `body` for `ref`; None when there is none or it cannot be read."""
    for found in _STATE.finditer(body):
        if found.group(1) != ref_key(ref):
            continue
        try:
            packed = base64.urlsafe_b64decode(found.group(2).encode())
            data = json.loads(zlib.decompressobj().decompress(packed, MAX_STATE))
            return _state_of(data)
        except (binascii.Error, zlib.error, ValueError, TypeError, KeyError, AttributeError):
            return None
    return None


def _regression_json(r: Regression) -> list[Any]:
    # Clipped, so that many regressions fit in one body; `flow` matches on the kept prefix.
    message = r.message if len(r.message) <= MESSAGE_KEPT else r.message[:MESSAGE_KEPT - 1] + "…"
    return [r.fingerprint, r.tool, r.rule, r.severity, message, r.path, r.line, r.end_line,
            r.column, r.end_column, r.commit, r.author, r.pull, r.pull_author, list(r.owners),
            r.since]


def _state_of(data: Any) -> State | None:
    if not isinstance(data, dict) or data.get("v") != VERSION or not isinstance(data.get("sha"), str):
        return None
    if not re.fullmatch(r"[0-9a-f]{40,64}", data["sha"]):
        return None
    tools, open_ = data.get("tools", {}), data.get("open", [])
    if not isinstance(tools, dict) or not isinstance(open_, list):
        return None
    regressions = tuple(_regression_of(item) for item in open_)
    return State(data["sha"], {str(k): str(v) for k, v in tools.items()}, regressions)


def _regression_of(item: Any) -> Regression:
    if not isinstance(item, list) or len(item) != 16:
        raise ValueError("not a regression")
    (fp, tool, rule, severity, message, path, line, end_line, column, end_column, commit,
     author, pull, pull_author, owners, since) = item
    texts = (fp, tool, rule, severity, message, path, since)
    numbers = (line, end_line, column, end_column)
    if not all(isinstance(t, str) for t in texts) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in numbers):
        raise ValueError("malformed regression")
    for optional in (commit, author, pull_author):
        if optional is not None and not isinstance(optional, str):
            raise ValueError("malformed regression")
    if pull is not None and (not isinstance(pull, int) or isinstance(pull, bool)):
        raise ValueError("malformed regression")
    if not isinstance(owners, list) or not all(isinstance(o, str) for o in owners):
        raise ValueError("malformed regression")
    return Regression(fp, tool, rule, severity, message, path, line, end_line, column, end_column,
                      commit, author, pull, pull_author, tuple(owners), since)
