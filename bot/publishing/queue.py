"""The word on a pull (merge) request from its merge queue or merge train: what the change's
merge with what is ahead of it introduced, with the code frames. Pure.

The queue takes no inline comments (its commits are no pull request's head): the check run or
commit status on the merged result says the gate, and this one comment, found again by its
hidden marker, says why, apart from what the pull request's own review already said.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from bot.model import ReviewResult, Scope, Verdict
from bot.publishing.gate import Gate, blocking
from bot.render.markdown import (
    BODY_LIMIT,
    clip,
    code,
    frame,
    headline,
    inline,
    location,
    safe_fingerprint,
)
from bot.render.order import priority

MARKER = "<!-- reviewbot:queue -->"
MAX_FRAMES = 25
MAX_ENTRIES = 100


def known_key(key: str) -> str:
    """A posted comment's marker key without the `~N` of the Nth finding sharing one."""
    return key.split("~", 1)[0]


def worse(result: ReviewResult) -> list[Verdict]:
    """What the merged result made worse than its base, worst first (as the gate sees it)."""
    return sorted((v for v in result.findings if v.scope.commented), key=priority)


def split(result: ReviewResult, known: Collection[str]) -> tuple[list[Verdict], list[Verdict]]:
    """(introduced by the combination, already raised by the change's own review): a finding
    is known when the change's review holds a comment with its fingerprint."""
    fresh: list[Verdict] = []
    seen: list[Verdict] = []
    for verdict in worse(result):
        (seen if safe_fingerprint(verdict.fingerprint) in known else fresh).append(verdict)
    return fresh, seen


def line(result: ReviewResult, gate: Gate, known: Collection[str], *, queue: str,
         change: str) -> str:
    """The run's log line for `change` (e.g. "PR #7") merged by the `queue`."""
    fresh, seen = split(result, known)
    return (f"{queue}: {change} merged as {result.head[:12]} onto {result.merge_base[:12]}: "
            f"{'fails' if gate.failed else 'passes'}; {len(fresh)} new or changed finding(s) "
            f"from the combination, {len(seen)} already in the change's review")


def body(result: ReviewResult, gate: Gate, known: Collection[str],
         texts: Mapping[str, Sequence[str]], *, queue: str, target: str | None,
         limit: int = BODY_LIMIT - 500) -> str:
    """The comment for `result`, the review of the merged result (`queue`: "merge queue",
    "merge train"; `target`: the branch it goes into)."""
    fresh, seen = split(result, known)
    onto = (f"`{result.head[:12]}`, this change merged onto "
            f"{code(target) if target else 'its target'} at `{result.merge_base[:12]}`")
    if not gate.failed:
        head = (f"## reviewbot: the {queue} passes\n\n{onto}, passes the gate (fail level "
                f"`{gate.fail_level}`). An earlier run of the {queue} had stopped it.")
        return f"{MARKER}\n{head}"
    parts = [f"## reviewbot: the {queue} stopped this change\n\n{onto}, fails the gate: "
             f"{inline(gate.reason())}."]
    if fresh:
        parts.append(f"### Introduced by the combination ({len(fresh)})\n\nNot in this "
                     "change's own review: what the changes ahead of it in the "
                     f"{queue} and this one give together.\n\n"
                     + "\n".join(_entries(fresh, texts, gate)))
    elif seen:
        parts.append("The combination introduced nothing beyond this change's own review: "
                     "the gate fails on what that review already raised.")
    if seen:
        parts.append(f"### Already in this change's review ({len(seen)})\n\n"
                     + "\n".join(_entries(seen, texts, gate, frames=False)))
    text = f"{MARKER}\n" + "\n\n".join(parts)
    return text if len(text) <= limit else clip(text, limit)


def _entries(verdicts: Sequence[Verdict], texts: Mapping[str, Sequence[str]], gate: Gate,
             *, frames: bool = True) -> list[str]:
    rows = []
    for index, verdict in enumerate(verdicts[:MAX_ENTRIES]):
        finding = verdict.finding
        stops = " — **blocks**" if blocking(verdict, gate.fail_level) else ""
        where = " (outside the diff)" if (verdict.scope is Scope.INTRODUCED
                                          and verdict.where == "elsewhere") else ""
        line = (f"- {location(finding)}{where} · {headline(verdict)}: "
                f"{inline(clip(finding.message, 500))}{stops}")
        shown = frame(texts.get(finding.path, ()), finding) if frames and index < MAX_FRAMES \
            else ""
        rows.append(line + ("\n\n" + "\n".join("  " + r for r in shown.split("\n"))
                            if shown else ""))
    if len(verdicts) > MAX_ENTRIES:
        rows.append(f"- … and {len(verdicts) - MAX_ENTRIES} more (see the check's details)")
    return rows
