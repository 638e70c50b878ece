"""What the rest of the bot calls: search, findings with fixes, stage and apply.

Paths are searched on every core; results are the project's model types where one fits
(`Finding`, `Fix`, `Edit`, `Span`) and this package's `Match` and `Plan` otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.errors import BotError, Exit
from bot.model import Edit, Finding, Fix, Severity
from bot.positions import LineIndex
from bot.structural import TOOL, scan
from bot.structural import files as filesmod
from bot.structural import plan as planmod
from bot.structural.lang import Lang, get
from bot.structural.pattern import Pattern, compile_pattern
from bot.structural.plan import Plan
from bot.structural.rewrite import compile_template
from bot.structural.rules import RuleConfig
from bot.structural.search import Match, search_source


@dataclass(frozen=True)
class Query:
    """A pattern as the user wrote it, before it is compiled for a language."""

    pattern: str
    selector: str | None = None
    strictness: str = "smart"

    def compile(self, lang: Lang) -> Pattern:
        if self.selector:
            return compile_pattern(lang, "", context=self.pattern, selector=self.selector,
                                   strictness=self.strictness)
        return compile_pattern(lang, self.pattern, strictness=self.strictness)


@dataclass(frozen=True)
class SearchResult:
    results: tuple[scan.FileResult, ...]
    patterns: dict[str, Pattern]  # language name -> compiled pattern
    notes: tuple[str, ...]  # languages skipped, files skipped
    languages: tuple[str, ...] = ()  # the languages searched

    @property
    def matches(self) -> list[Match]:
        return [m for r in self.results for m in r.matches]

    @property
    def files_searched(self) -> int:
        return len(self.results)


def _jobs(query: Query, lang: str | None, files: Sequence[filesmod.SourceFile],
          rewrite: str | None) -> tuple[dict[str, scan.Job], list[str]]:
    langs = [get(lang)] if lang else sorted({f.lang for f in files}, key=lambda lg: lg.name)
    jobs: dict[str, scan.Job] = {}
    notes: list[str] = []
    first_error: BotError | None = None
    for lg in langs:
        try:
            pattern = query.compile(lg)
        except BotError as exc:
            if lang:
                raise
            first_error = first_error or exc
            notes.append(f"{lg.name}: pattern skipped: {exc.message}")
            continue
        template = compile_template(rewrite, pattern) if rewrite is not None else None
        jobs[lg.name] = scan.Job(pattern, template)
    if not jobs:
        if first_error is not None:
            raise first_error
        raise BotError("no files of a supported language to search; pass --lang and paths",
                       Exit.USAGE)
    return jobs, notes


def run(query: Query, *, lang: str | None = None, paths: Sequence[str] = (),
        cwd: Path | None = None, rewrite: str | None = None,
        max_workers: int | None = None) -> SearchResult:
    """Search (and with `rewrite`, compute edits for) `paths`, default the repository."""
    where = (cwd or Path.cwd()).resolve()
    chosen = get(lang) if lang else None  # an unknown language fails before listing files
    listed = filesmod.collect(paths, where, chosen)
    jobs, notes = _jobs(query, lang, listed, rewrite)
    return _scan(listed, jobs, notes, max_workers)


def run_rule(rule: RuleConfig, *, paths: Sequence[str] = (), cwd: Path | None = None,
             rewrite: bool = False, max_workers: int | None = None) -> SearchResult:
    """`run` with a rule (see bot.structural.rules) over the files of its language."""
    where = (cwd or Path.cwd()).resolve()
    if rewrite and rule.fix is None:
        raise BotError("the rule has no `fix` to rewrite with", Exit.USAGE)
    listed = filesmod.collect(paths, where, rule.lang)
    return _scan(listed, {rule.lang.name: scan.Job(rule=rule, rewrite=rewrite)}, [], max_workers)


def _scan(listed: Sequence[filesmod.SourceFile], jobs: dict[str, scan.Job], notes: list[str],
          max_workers: int | None) -> SearchResult:
    todo = [f for f in listed if f.lang.name in jobs]
    results = scan.run(todo, jobs, max_workers)
    notes += [f"{r.file.path}: {r.note}" for r in results if r.note]
    return SearchResult(tuple(results), {k: j.pattern for k, j in jobs.items() if j.pattern},
                        tuple(notes), tuple(jobs))


def search(pattern: str, *, lang: str | None = None, paths: Sequence[str] = (),
           cwd: Path | None = None, selector: str | None = None,
           strictness: str = "smart") -> list[Match]:
    """Every match of `pattern` under `paths` (default: the repository), nested ones included."""
    return run(Query(pattern, selector, strictness), lang=lang, paths=paths, cwd=cwd).matches


def search_text(pattern: str, lang: str, source: str | bytes, path: str = "",
                selector: str | None = None, strictness: str = "smart") -> list[Match]:
    """Matches in one in-memory source (e.g. a file at the head revision)."""
    data = source.encode() if isinstance(source, str) else source
    return search_source(Query(pattern, selector, strictness).compile(get(lang)), data, path)


_MSG_VAR = re.compile(r"\$\{?([A-Z_][A-Z0-9_]*)\}?")


def message_for(template: str, m: Match) -> str:
    """`template` with each $X replaced by what X bound in the match."""
    def sub(found: re.Match[str]) -> str:
        cap = m.captures.get(found.group(1))
        return cap.text if cap is not None else found.group(0)
    return _MSG_VAR.sub(sub, template)


def findings(pattern: str, *, rule: str, message: str, lang: str | None = None,
             paths: Sequence[str] = (), cwd: Path | None = None, rewrite: str | None = None,
             severity: Severity = Severity.WARNING, url: str | None = None,
             selector: str | None = None, strictness: str = "smart") -> list[Finding]:
    """One Finding per match (`$X` in `message` is replaced by what X bound); with
    `rewrite`, each outermost match carries a Fix with its edit."""
    res = run(Query(pattern, selector, strictness), lang=lang, paths=paths, cwd=cwd,
              rewrite=rewrite)
    return list(to_findings(res.results, rule=rule, message=message, severity=severity, url=url))


def to_findings(results: Iterable[scan.FileResult], *, rule: str, message: str,
                severity: Severity = Severity.WARNING, url: str | None = None) -> Iterable[Finding]:
    for r in results:
        fixes: dict[tuple[int, int], Fix] = {}
        if r.rewrite is not None and not r.rewrite.error:
            pos = LineIndex.of_bytes(r.source)
            for e in r.rewrite.edits:
                edit = Edit(r.file.path, pos.span(e.start, e.end), e.new.decode("utf-8", "replace"))
                fixes[(e.match_start, e.match_end)] = Fix(f"rewrite with {rule}", (edit,))
        for m in r.matches:
            yield Finding(TOOL, rule, severity, message_for(message, m), m.path, m.span, url,
                          fixes.get((m.start, m.end)))


def stage(pattern: str, rewrite: str, *, lang: str | None = None, paths: Sequence[str] = (),
          cwd: Path | None = None, selector: str | None = None,
          strictness: str = "smart") -> Plan:
    """A plan of every rewrite, nothing written; refused when a rewritten file would not parse."""
    where = (cwd or Path.cwd()).resolve()
    res = run(Query(pattern, selector, strictness), lang=lang, paths=paths, cwd=where,
              rewrite=rewrite)
    names = ",".join(sorted(res.patterns))
    return planmod.build(res.results, where, names, pattern, rewrite)


def apply(plan: Plan) -> list[str]:
    """Write the plan all-or-nothing; BotError(Exit.GATE) when any file moved since staging."""
    return planmod.apply(plan)
