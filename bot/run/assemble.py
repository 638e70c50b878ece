"""The artifacts `reviewbot publish` is given, as one analysis: a whole analysis as it is
(several are merged, `artifact.merge`), or every part of a sharded one (`bot.run.part`) checked as
a set and classified together, so that the review is the one an unsharded run publishes.

The set is refused (exit 2, naming the files) when the parts are of different heads, of
different plans (another reviewbot, other options or configuration, another shard count),
when a shard is missing or given twice, or when whole analyses and parts are mixed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from bot.errors import BotError, Exit
from bot.model import ToolRun, ToolStatus
from bot.revisions.evidence import DisagreeError, Evidence
from bot.run import artifact, excerpt
from bot.run.part import Part
from bot.verdicts.classify import Inputs, classify


def assemble(analyses: Sequence[artifact.Analysis], names: Sequence[str]) -> artifact.Analysis:
    """One analysis of `analyses` (read from the files `names`, in that order)."""
    parts = [a.part for a in analyses]
    if all(p is None for p in parts):
        return artifact.merge(analyses)
    whole = [n for n, p in zip(names, parts, strict=True) if p is None]
    if whole:
        raise BotError(f"{whole[0]} is a whole analysis, the other files are parts of a sharded "
                       "one: publish either one analysis or every part of one", Exit.USAGE)
    shards = [p for p in parts if p is not None]
    _check_set(analyses, shards, names)
    merged = artifact.merge([replace(a, part=None) for a in analyses])
    try:
        evidence = Evidence.joined([p.evidence for p in shards], merged.result.changes)
    except DisagreeError as exc:
        raise BotError(f"{names[exc.index]}: shard.{exc.kind}[{exc.path!r}] differs from "
                       f"{names[exc.first]}'s: not parts of one analysis", Exit.USAGE) from exc
    verdicts, fixed, notes = classify(Inputs(
        # A finding two parts both report (a crate's lint seen from a dependent crate's run
        # too) counts once, as one tool's run keeps it once (runner._outcome).
        base=list(dict.fromkeys(f for p in shards for f in p.base)),
        head=list(dict.fromkeys(f for p in shards for f in p.head)),
        evidence=evidence, unbaselined=frozenset(u for p in shards for u in p.unbaselined)))
    result = replace(merged.result, tools=_tools([t for a in analyses for t in a.result.tools]),
                     findings=tuple(verdicts), fixed=tuple(fixed),
                     notes=(*merged.result.notes, *notes))
    texts = excerpt.needed(result, {p: list(side.lines) for p, side in evidence.head_files.items()})
    # The same normal form (order, duplicates) as a whole analysis gets when published.
    return artifact.merge([replace(merged, result=result, texts=texts)])


def _check_set(analyses: Sequence[artifact.Analysis], shards: Sequence[Part],
               names: Sequence[str]) -> None:
    first, name = analyses[0], names[0]
    for analysis, shard, other in zip(analyses, shards, names, strict=True):
        if analysis.head_sha != first.head_sha:
            raise BotError(f"{other} is of head {analysis.head_sha[:12]}, {name} of "
                           f"{first.head_sha[:12]}: publish the parts of one analysis",
                           Exit.USAGE)
        if (shard.count, shard.plan) != (shards[0].count, shards[0].plan):
            raise BotError(f"{other} was planned as one of {shard.count} shards (plan "
                           f"{shard.plan}), {name} as one of {shards[0].count} (plan "
                           f"{shards[0].plan}): mixed configurations; run every shard with the "
                           "same reviewbot, options and configuration", Exit.USAGE)
    given: dict[int, list[str]] = {}
    for shard, other in zip(shards, names, strict=True):
        given.setdefault(shard.index, []).append(other)
    count = shards[0].count
    for index, files in sorted(given.items()):
        if len(files) > 1:
            raise BotError(f"shard {index}/{count} is given twice: {', '.join(files)}",
                           Exit.USAGE)
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in given]
    if missing:
        raise BotError(f"shard {', '.join(missing)} missing: publish every part of the "
                       "analysis", Exit.USAGE)


_WORST: tuple[ToolStatus, ...] = ("missing", "timeout", "failed", "skipped", "ok")


def _tools(runs: Sequence[ToolRun]) -> tuple[ToolRun, ...]:
    """One row per tool: the worst status of its shards, their messages, where it failed."""
    by_name: dict[str, list[ToolRun]] = {}
    for run in runs:
        by_name.setdefault(run.name, []).append(run)
    out = []
    for name, mine in sorted(by_name.items()):
        status = min((r.status for r in mine), key=_WORST.index)
        messages = [r.message for r in mine if r.status == status and r.message]
        seconds = [r.seconds for r in mine if r.seconds is not None]
        out.append(ToolRun(name, next((r.version for r in mine if r.version), None), status,
                           "\n".join(dict.fromkeys(messages)),
                           tuple(s for s in ("base", "head") if any(s in r.failed_at for r in mine)),
                           round(sum(seconds), 3) if seconds else None))
    return tuple(out)
