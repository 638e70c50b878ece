"""`/ast-grep` and `/ast-edit` over the pull request's changed files at its head, as replies.

Files are read from git at the head commit (never a working tree). A pattern that no language
of the changed files accepts is answered with the parser's own message: an empty result would
say "no match" about a search that never ran.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.apply.sources import Group
from bot.apply.verify import parse_problem
from bot.errors import BotError, Exit
from bot.model import Edit, Finding, Severity
from bot.positions import apply_span_edits, split_lines
from bot.render.markdown import code, frame
from bot.render.suggestion import block
from bot.structural.lang import Lang, for_path, get
from bot.structural.pattern import Pattern, compile_pattern
from bot.structural.search import Match, search_source

MAX_FRAMES = 20
MAX_DIFF_LINES = 80


@dataclass(frozen=True)
class Found:
    matches: tuple[Match, ...]
    searched: int  # files searched


def search(pattern: str, lang: str | None, texts: Mapping[str, str]) -> Found:
    """Every match of `pattern` in `texts` ({path: head text}); BotError with the parser's
    message when the pattern compiles for none of their languages."""
    chosen = get(lang) if lang else None  # an unknown language is an error that lists them
    compiled: dict[str, Pattern | BotError] = {}
    matches: list[Match] = []
    searched = 0
    for path in sorted(texts):
        language = _language(path, chosen)
        if language is None:
            continue
        if language.name not in compiled:
            try:
                compiled[language.name] = compile_pattern(language, pattern)
            except BotError as exc:
                compiled[language.name] = exc
        job = compiled[language.name]
        if isinstance(job, BotError):
            continue
        searched += 1
        matches += search_source(job, texts[path].encode("utf-8"), path)
    errors = [c for c in compiled.values() if isinstance(c, BotError)]
    if errors and len(errors) == len(compiled):
        raise BotError(errors[0].message, Exit.USAGE)
    if not compiled:
        what = f"{chosen.name} file" if chosen else "file of a supported language"
        raise BotError(f"the pull request changes no {what} to search", Exit.USAGE)
    return Found(tuple(matches), searched)


def _language(path: str, chosen: Lang | None) -> Lang | None:
    lang = for_path(path)
    if chosen is None:
        return lang
    return chosen if lang is not None and lang.name == chosen.name else None


def matches_reply(pattern: str, found: Found, texts: Mapping[str, str]) -> str:
    files = len({m.path for m in found.matches})
    n = len(found.matches)
    head = (f"`/ast-grep` found {n} match{'es' * (n != 1)} in {files} file{'s' * (files != 1)} "
            f"({found.searched} changed file{'s' * (found.searched != 1)} searched) for "
            f"{_code(pattern)}")
    rows = []
    for match in found.matches[:MAX_FRAMES]:
        finding = Finding("ast-grep", "", Severity.INFO, "", match.path, match.span)
        shown = frame(split_lines(texts[match.path]), finding)
        rows.append(f"**{_code(match.path)}:{match.span.line}**\n\n{shown}")
    if n > MAX_FRAMES:
        rows.append(f"… and {n - MAX_FRAMES} more")
    return "\n\n".join([head + ("." if n else ": no match."), *rows])


def _by_path(groups: Sequence[Group]) -> dict[str, list[Edit]]:
    by_path: dict[str, list[Edit]] = {}
    for group in groups:
        for edit in group.edits:
            by_path.setdefault(edit.path, []).append(edit)
    return by_path


def unparsable(groups: Sequence[Group], texts: Mapping[str, str]) -> list[str]:
    """`path: why` for each file that the groups' edits leave unparsable: the check apply
    makes (`bot.apply.verify`), made when the rewrite is staged."""
    out = []
    for path, edits in sorted(_by_path(groups).items()):
        why = parse_problem(path, texts[path], _applied(texts[path], edits))
        if why:
            out.append(f"{path}: {why}")
    return out


def preview(groups: Sequence[Group], texts: Mapping[str, str]) -> str:
    """The groups' edits as a unified diff (clipped), one file after another."""
    by_path = _by_path(groups)
    out: list[str] = []
    for path in sorted(by_path):
        before = texts[path]
        after = _applied(before, by_path[path])
        out += difflib.unified_diff(split_lines(before), split_lines(after),
                                    f"a/{path}", f"b/{path}", n=1)
    lines = [line.rstrip("\n") for line in out]
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"… {len(lines) - MAX_DIFF_LINES} more lines"]
    return block(lines, "diff") if lines else ""


def _applied(text: str, edits: Sequence[Edit]) -> str:
    return apply_span_edits(text, edits)


def _code(text: str) -> str:
    return code(" ".join(text.split())[:300])
