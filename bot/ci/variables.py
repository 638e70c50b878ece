"""CI variables read by their form: a variable that is set but not of its form is refused with
a one-line message naming it (exit status 2), never read as if it were not set. An empty
variable is one not set: CI systems give an undefined variable as "" (GitLab's `$VAR` in
`variables:`, a workflow's `${{ env.X }}`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import urlsplit

from bot.errors import BotError, Exit


@dataclass(frozen=True)
class Form:
    """What a variable's value must be: `what` completes "is not ...", `check` says whether a
    non-empty value is one (no value with a control character is)."""
    what: str
    check: Callable[[str], bool]

    def valid(self, value: str) -> bool:
        return not any(ord(c) < 0x20 or ord(c) == 0x7F for c in value) and self.check(value)


def _matching(pattern: str) -> Callable[[str], bool]:
    compiled = re.compile(pattern)
    return lambda value: compiled.fullmatch(value) is not None


def _url(value: str) -> bool:
    try:
        parts = urlsplit(value)
    except ValueError:  # a malformed IPv6 host
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname) and " " not in value


def _branch(value: str) -> bool:
    """`git check-ref-format --branch`'s rules, without running git."""
    if value.startswith(("-", "/", ".")) or value.endswith(("/", ".", ".lock")) or value == "@":
        return False
    if any(bad in value for bad in ("..", "//", "@{", "/.", " ")):
        return False
    return not any(c in value for c in "~^:?*[\\")


SHA = Form("a commit sha", _matching(r"[0-9a-f]{40}([0-9a-f]{24})?"))
NUMBER = Form("a positive number", _matching(r"[1-9][0-9]{0,18}"))
# GitLab's paths: a namespace (groups, a user) and the project, each of letters, digits,
# `_`, `-`, `.`; GitHub's and Gitea's `owner/name` are of the same form.
PROJECT = Form("a project path (namespace/project)",
               _matching(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*(/[A-Za-z0-9_][A-Za-z0-9_.+-]*)+"))
USER = Form("a user name", _matching(r"[A-Za-z0-9_][A-Za-z0-9_.-]*(\[bot\])?"))
# A name such as `merge_request_event`: a value GitLab may add later is of this form.
NAME = Form("a name of lowercase letters and `_`", _matching(r"[a-z][a-z_]*"))
URL = Form("an http(s) URL", _url)
FLAG = Form("`true` or `false`", lambda value: value in ("true", "false"))
# A ref as the runner names it (refs/heads/main) or a branch: git's rules for either.
REF = Form("a git ref", _branch)
BRANCH = Form("a branch name", _branch)
ABSOLUTE = Form("an absolute path", lambda value: PurePosixPath(value).is_absolute())
FILE = Form("a file's path", lambda value: True)  # of no control character


def optional(env: Mapping[str, str], name: str, form: Form) -> str | None:
    """The variable's value; None when it is not set or empty; BotError (usage) naming it when
    it is set but not of `form`."""
    value = env.get(name) or ""
    if not value:
        return None
    if not form.valid(value):
        raise BotError(f"{name}={value!r} is not {form.what}", Exit.USAGE)
    return value


def required(env: Mapping[str, str], name: str, form: Form, hint: str) -> str:
    """`optional`, with `hint` completing the message when the variable is not set."""
    value = optional(env, name, form)
    if value is None:
        raise BotError(f"{name} is not set: {hint}", Exit.USAGE)
    return value
