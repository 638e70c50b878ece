"""Slash commands in a pull request comment, as values. Pure: no I/O, nothing is run.

A command is a line that starts with the prefix (default `/`) and a verb; a comment may hold
several, which run in order. Lines inside fenced code blocks (``` or ~~~), indented code
(four spaces or more) and quoted lines (`> …`) never count: a maintainer quoting or showing a
command must not run it. Arguments are split here into fields; nothing reaches a shell.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Verb = Literal["review", "fix", "ast-grep", "ast-edit", "apply", "ignore", "help"]
VERBS: tuple[Verb, ...] = ("review", "fix", "ast-grep", "ast-edit", "apply", "ignore", "help")
USAGE: dict[Verb, str] = {
    "review": "/review",
    "fix": "/fix",
    "ast-grep": "/ast-grep PATTERN [--lang L]",
    "ast-edit": "/ast-edit PATTERN => REWRITE [--lang L]",
    "apply": "/apply [PLAN]",
    "ignore": "/ignore FINGERPRINT REASON",
    "help": "/help",
}
MAX_COMMANDS = 10  # per comment: a pasted wall of commands is not a script to run

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_VERB = re.compile(r"([A-Za-z][A-Za-z0-9_-]*)(?:\s+(.*))?")
_LANG = re.compile(r"(?:^|\s)--lang(?:=|\s+)(\S+)\s*$")
_FINGERPRINT = re.compile(r"[A-Za-z0-9._:+/=~-]{1,200}")
_PLAN = re.compile(r"[0-9a-f]{12}")  # a plan's id, as the summary shows it (`plan <id>`)


@dataclass(frozen=True)
class Command:
    verb: Verb
    line: int  # 1-based line of the comment
    pattern: str | None = None  # ast-grep, ast-edit
    rewrite: str | None = None  # ast-edit
    lang: str | None = None
    fingerprint: str | None = None  # ignore
    reason: str | None = None  # ignore
    plan: str | None = None  # apply: the plan the comment commits, and no other


@dataclass(frozen=True)
class Problem:
    """A line that names a command but cannot run: the reply says why."""

    line: int
    message: str
    verb: str = ""


Parsed = Command | Problem


def commands(body: str, prefix: str = "/") -> tuple[Parsed, ...]:
    """Every command line of `body`, in order (at most MAX_COMMANDS, then one Problem)."""
    out: list[Parsed] = []
    for number, line in _live_lines(body):
        parsed = _line(line, number, prefix)
        if parsed is None:
            continue
        if len(out) == MAX_COMMANDS:
            out.append(Problem(number, f"at most {MAX_COMMANDS} commands per comment; "
                                       "the rest were not run"))
            break
        out.append(parsed)
    return tuple(out)


def _live_lines(body: str) -> list[tuple[int, str]]:
    """The lines outside code and quotes, with their numbers."""
    live: list[tuple[int, str]] = []
    fence: str | None = None
    for number, line in enumerate(body.splitlines(), 1):
        opened = _FENCE.match(line)
        if fence is not None:
            # A fence closes with the same character, at least as long, and nothing after it.
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence) \
                    and not line[opened.end():].strip():
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        if line.startswith("    ") or line.startswith("\t") or line.lstrip().startswith(">"):
            continue
        live.append((number, line.strip()))
    return live


def _line(line: str, number: int, prefix: str) -> Parsed | None:
    if not line.startswith(prefix):
        return None
    found = _VERB.fullmatch(line[len(prefix):])
    if found is None:  # "/usr/bin …", "/ …": prose, not a command
        return None
    word, rest = found.group(1), (found.group(2) or "").strip()
    verb = next((v for v in VERBS if v == word.lower()), None)
    if verb is None:
        known = ", ".join(f"`{prefix}{v}`" for v in VERBS)
        return Problem(number, f"unknown command `{prefix}{word}`; the commands are {known} "
                               f"(`{prefix}help` explains them)", word)
    return _arguments(verb, rest, number, prefix)


def _arguments(verb: Verb, rest: str, number: int, prefix: str) -> Parsed:
    usage = f"usage: `{prefix}{USAGE[verb][1:]}`"
    if verb == "apply" and rest:
        # Where no label can say it (Bitbucket), the plan's id pins what a comment commits.
        plan = rest.strip("`").removeprefix("plan ").strip("` ")
        if not _PLAN.fullmatch(plan):
            return Problem(number, f"`{rest[:40]}` is not a plan's id ({usage}; the summary "
                                   "shows `plan <id>`)", verb)
        return Command(verb, number, plan=plan)
    if verb in ("review", "fix", "apply", "help"):
        return Command(verb, number) if not rest else Problem(
            number, f"`{prefix}{verb}` takes no arguments ({usage})", verb)
    if verb == "ignore":
        fingerprint, _, reason = rest.partition(" ")
        fingerprint = fingerprint.strip("`")
        if not fingerprint or not reason.strip():
            return Problem(number, f"{usage}: a finding's fingerprint and why it is ignored", verb)
        if not _FINGERPRINT.fullmatch(fingerprint):
            return Problem(number, f"`{fingerprint[:40]}` is not a finding's fingerprint "
                                   "(the summary lists each finding's)", verb)
        return Command(verb, number, fingerprint=fingerprint, reason=reason.strip())
    lang = None
    found = _LANG.search(rest)
    if found:
        lang, rest = found.group(1), rest[:found.start()].strip()
    if verb == "ast-grep":
        pattern = _unquote(rest)
        if not pattern:
            return Problem(number, f"{usage}: the pattern is missing", verb)
        return Command(verb, number, pattern=pattern, lang=lang)
    pattern, arrow, rewrite = rest.partition("=>")
    if not arrow or not _unquote(pattern):
        return Problem(number, f"{usage}: a pattern, `=>`, then the rewrite", verb)
    return Command(verb, number, pattern=_unquote(pattern), rewrite=_unquote(rewrite), lang=lang)


def _unquote(text: str) -> str:
    """`print($A)` written as inline code in Markdown is the pattern print($A)."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == "`":
        return text.strip("`").strip()
    return text


def help_text(prefix: str = "/") -> str:
    rows = {
        "review": "re-run the review and publish it",
        "fix": "commit the safe linter fixes of the findings this pull request introduced or "
               "changed",
        "ast-grep": "reply with the matches in the pull request's changed files",
        "ast-edit": "stage a rewrite over the changed files (commits nothing); the summary "
                    "shows the plan",
        "apply": "commit the staged plan (the same as adding the apply label); with its id, "
                 "only that plan",
        "ignore": "stop commenting that finding on this pull request; the summary lists it",
        "help": "this table",
    }
    lines = [f"| `{prefix}{USAGE[v][1:]}` | {rows[v]} |" for v in VERBS]
    return "| command | does |\n|---|---|\n" + "\n".join(lines)
