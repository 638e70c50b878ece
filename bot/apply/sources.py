"""Where a plan's edits come from: the review's findings with fixes, and staged rewrites run
over the head's files. Each source yields `Group`s: edits that go in together or not at all
(a fix is never half-applied)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from bot import git
from bot.errors import BotError
from bot.model import Applicability, Edit, FileChange, Fix, ReviewResult, Verdict
from bot.positions import LineIndex
from bot.structural import TOOL, scan
from bot.structural.files import MAX_BYTES, SourceFile
from bot.structural.lang import Lang, for_path, get
from bot.structural.pattern import Pattern, compile_pattern
from bot.structural.rewrite import Template, compile_template

REGULAR = ("100644", "100755")  # file modes a plan may edit (not symlinks, not submodules)


@dataclass(frozen=True)
class StagedRewrite:
    """A rewrite staged by `/ast-edit PATTERN => REWRITE [--lang L]`."""

    pattern: str
    rewrite: str
    lang: str | None
    by: str  # who staged it


@dataclass(frozen=True)
class Group:
    source: str  # the line of `Plan.sources` it counts on: "ruff F401 (safe)"
    edits: tuple[Edit, ...]

    @property
    def where(self) -> str:
        first = min(self.edits, key=lambda e: (e.path, e.span))
        return f"{first.path}:{first.span.line}:{first.span.column}"


def clean(path: str) -> bool:
    """A plain repository-relative POSIX path: nothing a tool's output could use to reach
    outside the tree or into `.git`."""
    parts = path.split("/")
    return (bool(path) and not PurePosixPath(path).is_absolute() and "\\" not in path
            and "\0" not in path and all(p not in ("", ".", "..") for p in parts)
            and ".git" not in (p.lower() for p in parts))


def changed_paths(result: ReviewResult) -> tuple[str, ...]:
    """The PR's changed files that exist at the head, sorted."""
    return tuple(sorted(c.path for c in result.changes if c.status != "deleted" and not c.binary))


def paths_needed(result: ReviewResult, kind: Literal["apply", "fix"], staged: bool) -> set[str]:
    """Every path whose head text the plan may need."""
    out = {e.path for v in result.findings if v.finding.fix for e in v.finding.fix.edits}
    if kind == "apply" and staged:
        out |= set(changed_paths(result))
    return out


def head_texts(checkout: Path, head: str, paths: Iterable[str]) -> dict[str, str]:
    """{path: text} of the regular UTF-8 text files among `paths` at `head`, read from git."""
    wanted = sorted(p for p in set(paths) if clean(p))
    modes = git.tree_blobs(checkout, head, wanted)
    regular = [p for p in wanted if modes.get(p, "").split(" ")[0] in REGULAR]
    out: dict[str, str] = {}
    for path, blob in zip(regular, git.cat_blobs(checkout, [f"{head}:{p}" for p in regular]),
                          strict=True):
        if blob is None or len(blob) > MAX_BYTES or b"\0" in blob[:8192]:
            continue
        try:
            out[path] = blob.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return out


def _fix_groups(verdicts: Iterable[Verdict], label: str) -> list[Group]:
    """One group per distinct fix, in the order of the findings' sort keys."""
    ordered = sorted(verdicts, key=lambda v: v.finding.sort_key())
    fixes: dict[Fix, Verdict] = {}
    for v in ordered:
        if v.finding.fix is not None and v.finding.fix.edits:
            fixes.setdefault(v.finding.fix, v)
    return [Group(label.format(tool=v.finding.tool, rule=v.finding.rule), fix.edits)
            for fix, v in fixes.items()]


def _on_changed_lines(v: Verdict, changes: dict[str, FileChange]) -> bool:
    change = changes.get(v.finding.path)
    if change is None or change.status == "deleted":
        return False
    if change.status == "added":
        return True
    span = v.finding.span
    return any(line in change.changed_lines for line in range(span.line, max(span.end_line, span.line) + 1))


def rule_groups(result: ReviewResult) -> list[Group]:
    """The repository's rules' fixes on the PR's changed lines."""
    changes = {c.path: c for c in result.changes}
    picked = [v for v in result.findings if v.finding.tool == TOOL and _on_changed_lines(v, changes)]
    return _fix_groups(picked, "ast-grep rule {rule}")


def linter_groups(result: ReviewResult) -> list[Group]:
    """The linters' safe fixes of introduced and changed findings (rules' fixes are not
    linter fixes: `/fix` never takes them)."""
    picked = [v for v in result.findings if v.finding.tool != TOOL and v.scope.fixable
              and v.finding.fix is not None and v.finding.fix.applicability is Applicability.SAFE]
    return _fix_groups(picked, "{tool} {rule} (safe)")


def _language(rewrite: StagedRewrite, path: str) -> Lang | None:
    if rewrite.lang is None:
        return for_path(path)
    lang = get(rewrite.lang)
    return lang if PurePosixPath(path).suffix.lower() in lang.extensions else None


def staged_groups(rewrite: StagedRewrite, label: str, paths: Sequence[str], texts: dict[str, str]
                  ) -> tuple[list[Group], str]:
    """One group per edit of `rewrite` over `paths` (their head `texts`), and why the rewrite
    could not be staged at all (its pattern or template does not compile), or ""."""
    compiled: dict[str, tuple[Pattern, Template] | BotError] = {}
    groups: list[Group] = []
    try:
        langs = {p: _language(rewrite, p) for p in paths}
    except BotError as exc:
        return [], exc.message
    for path in paths:
        lang, text = langs[path], texts.get(path)
        if lang is None or text is None:
            continue
        if lang.name not in compiled:
            try:
                pattern = compile_pattern(lang, rewrite.pattern)
                compiled[lang.name] = (pattern, compile_template(rewrite.rewrite, pattern))
            except BotError as exc:
                compiled[lang.name] = exc
        job = compiled[lang.name]
        if isinstance(job, BotError):
            continue
        pattern, template = job
        source = text.encode("utf-8")
        found = scan.process(SourceFile(path, path, lang), source,
                             scan.Job(pattern, template))
        if found.rewrite is None:
            continue
        pos = LineIndex.of_bytes(source)
        groups += [Group(label, (Edit(path, pos.span(e.start, e.end), e.new.decode("utf-8")),))
                   for e in found.rewrite.edits]
    errors = [v for v in compiled.values() if isinstance(v, BotError)]
    if errors and len(errors) == len(compiled):
        return groups, errors[0].message
    return groups, ""
