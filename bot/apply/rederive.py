"""The fixes of `.reviewbot.yml` rules in a review another job computed (the analysis
artifact, the word of a job that ran the change's code), re-derived from git objects: the
head's rules, read at the head, matched by our own engine over the head's blobs. A fix is kept
when the rule gives exactly that edit at the head, and dropped, with a note saying why, when it
does not. Nothing of the change runs here: the rules are data.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from bot import config, git
from bot.apply.sources import REGULAR, clean
from bot.errors import BotError
from bot.model import Fix, ReviewResult, Span, Verdict
from bot.structural import TOOL

Key = tuple[str, str, Span]  # (rule, path, span) of a rule's finding


@dataclass(frozen=True)
class Rederived:
    result: ReviewResult  # every rule fix kept is the head's rule's own
    notes: tuple[str, ...] = ()  # one per fix dropped, saying why


def rule_fixes(checkout: Path, result: ReviewResult) -> Rederived:
    """`result` with each rule finding's fix checked against the head's rules in `checkout`
    (a repository holding `result.head`)."""
    claimed = [v for v in result.findings if v.finding.tool == TOOL and v.finding.fix is not None]
    if not claimed:
        return Rederived(result)
    try:
        given = _recomputed(checkout, result.head, sorted({v.finding.path for v in claimed}))
    except BotError as exc:
        note = (f"the rules at {result.head[:12]} could not be read here ({exc.message}): "
                "no rule's fix is offered")
        return Rederived(replace(result, findings=tuple(_unfixed(v) for v in result.findings)),
                         (note,))
    notes: list[str] = []
    findings: list[Verdict] = []
    for verdict in result.findings:
        f = verdict.finding
        if f.tool != TOOL or f.fix is None or given.get((f.rule, f.path, f.span)) == f.fix:
            findings.append(verdict)
            continue
        notes.append(f"{f.path}:{f.span.line}: the analysis's fix is not what the rule {f.rule} "
                     f"gives at the head {result.head[:12]}: not offered")
        findings.append(_unfixed(verdict))
    return Rederived(replace(result, findings=tuple(findings)), tuple(notes))


def _unfixed(verdict: Verdict) -> Verdict:
    if verdict.finding.tool != TOOL:
        return verdict
    return replace(verdict, finding=replace(verdict.finding, fix=None))


def _recomputed(checkout: Path, head: str, paths: list[str]) -> dict[Key, Fix | None]:
    """{(rule, path, span): fix} of the head's rules over the head's blobs of `paths`."""
    # Imported here: tree-sitter and the grammars load only when a rule claims a fix.
    from bot.structural.analyzer import RulesAnalyzer

    cfg = config.read_at(checkout, head)
    if not cfg.rules:
        return {}
    tool = RulesAnalyzer.from_settings(cfg.rules, lambda path: git.show(checkout, head, path))
    wanted = [p for p in paths if clean(p)]
    modes = git.tree_blobs(checkout, head, wanted)
    regular = [p for p in wanted if modes.get(p, "").split(" ")[0] in REGULAR]
    out: dict[Key, Fix | None] = {}
    for path, blob in zip(regular, git.cat_blobs(checkout, [f"{head}:{p}" for p in regular]),
                          strict=True):
        if blob is None:
            continue
        for finding in tool.findings_in(path, blob):
            out.setdefault((finding.rule, finding.path, finding.span), finding.fix)
    return out
