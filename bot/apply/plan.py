"""The staged plan: every edit the apply commit would make at a pull request's head, and its id.

A plan is repository-relative and keyed on the head sha: the same head and the same edits give
the same id in any run, so the id shown in a review summary can be checked when someone asks
to apply it. Edits come from three sources, taken in this order, and where two overlap the
earlier one wins (the later group is dropped whole, with a line in `sources`):

1. the repository's rules (`.reviewbot.yml` rules with a `fix`) on the PR's changed lines,
   in the order of their findings;
2. the rewrites staged with `/ast-edit`, in the order they were staged;
3. the linters' safe fixes of introduced and changed findings, in the order of their findings.

`kind="fix"` (the `/fix` command) takes only the third.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bot.apply import sources
from bot.apply.sources import Group, StagedRewrite
from bot.model import Edit, ReviewResult
from bot.positions import LineIndex, TextEdit, conflicts
from bot.render.markdown import code

__all__ = ["WORKFLOWS", "Plan", "StagedRewrite", "build", "plan_for", "plan_id", "render",
           "workflow_files"]

WORKFLOWS = ".github/workflows/"  # never changed by the bot (see `workflow_files`)
DEFAULT_LABEL = "reviewbot:apply"


@dataclass(frozen=True)
class Plan:
    id: str  # 12 hex: a hash of the head sha and the edits
    head: str
    edits: tuple[Edit, ...]  # repo-relative paths, non-overlapping, sorted
    files: tuple[str, ...]
    sources: tuple[str, ...]  # one line per source, then one per dropped group

    @property
    def empty(self) -> bool:
        return not self.edits


def plan_id(head: str, edits: Sequence[Edit]) -> str:
    """12 hex digits of a hash over the head sha and the sorted edits."""
    rows = sorted((e.path, e.span.line, e.span.column, e.span.end_line, e.span.end_column, e.new_text)
                  for e in edits)
    payload = json.dumps(["reviewbot-plan-1", head, rows], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def workflow_files(plan: Plan) -> tuple[str, ...]:
    """The plan's files under `.github/workflows/` (compared without case: a checkout on a
    case-insensitive file system would run them)."""
    return tuple(p for p in plan.files if p.lower().startswith(WORKFLOWS))


# -- choosing the edits (pure) ------------------------------------------------------------------

Range = TextEdit[str]  # offsets in the head text (code points)


def _canonical(path: str, index: LineIndex, r: Range) -> Edit:
    """The edit with its span recomputed from offsets, so two spellings of one range (a column
    past the end of a line) are one edit, in the id too."""
    return Edit(path, index.span(r.start, r.end), r.new)


def build(head: str, labels: Sequence[str], groups: Sequence[Group], texts: dict[str, str],
          notes: Sequence[str] = ()) -> Plan:
    """The plan of `groups` (in order; the first of two overlapping groups wins) over the head
    `texts` ({path: text}); `labels` are the sources in the order they are listed."""
    taken: dict[str, list[tuple[Range, str]]] = {}
    counts = dict.fromkeys(labels, 0)
    dropped: list[str] = []
    indexes: dict[str, LineIndex] = {}  # each head text indexed once
    for group in groups:
        counts.setdefault(group.source, 0)
        why, ranges = _check(group, texts, indexes, taken)
        if why:
            dropped.append(f"dropped: {group.source} at {group.where}: {why}")
            continue
        for path, r in ranges:
            taken.setdefault(path, []).append((r, group.source))
        counts[group.source] += len(ranges)
    edits = sorted((_canonical(path, indexes[path], r) for path, rs in taken.items() for r, _ in rs),
                   key=lambda e: (e.path, e.span, e.new_text))
    lines = [f"{label}: {n} edit{'' if n == 1 else 's'}" for label, n in counts.items()]
    return Plan(plan_id(head, edits), head, tuple(edits), tuple(sorted(taken)),
                tuple([*lines, *notes, *dropped]))


def _check(group: Group, texts: dict[str, str], indexes: dict[str, LineIndex],
           taken: dict[str, list[tuple[Range, str]]]) -> tuple[str, list[tuple[str, Range]]]:
    """Why `group` cannot be taken (empty when it can), and its new ranges: edits already
    taken identically and edits that change nothing are left out."""
    ranges: list[tuple[str, Range]] = []
    for edit in group.edits:
        text = texts.get(edit.path)
        if text is None:
            return f"{edit.path} is not a regular UTF-8 text file at the head", []
        index = indexes.get(edit.path) or indexes.setdefault(edit.path, LineIndex(text))
        start, end = index.range(edit.span)
        if start > end:
            return "its range ends before it starts", []
        r = TextEdit(start, end, edit.new_text)
        if text[start:end] == edit.new_text or any(r == t for t, _ in taken.get(edit.path, ())) \
                or (edit.path, r) in ranges:
            continue
        for other, owner in taken.get(edit.path, ()):
            if conflicts(r, other):
                return f"overlaps an edit of {owner}", []
        if any(p == edit.path and conflicts(r, o) for p, o in ranges):
            return "its own edits overlap", []
        ranges.append((edit.path, r))
    return "", ranges


# -- the plan of a review ---------------------------------------------------------------------

def plan_for(checkout: Path, result: ReviewResult, staged: Sequence[StagedRewrite],
             kind: Literal["apply", "fix"]) -> Plan:
    """The plan at `result.head`, with files read from git at that commit (never the working
    tree). `apply`: rules' fixes on changed lines, then the staged rewrites over the changed
    files, then the safe linter fixes; `fix`: the safe linter fixes only."""
    groups: list[Group] = []
    labels: list[str] = []  # every source in order, those that found nothing too
    notes: list[str] = []
    texts = sources.head_texts(checkout, result.head, sources.paths_needed(result, kind, bool(staged)))
    if kind == "apply":
        groups += sources.rule_groups(result)
        labels += [g.source for g in groups]
        for rewrite in staged:
            label = f"/ast-edit by {rewrite.by}"
            if label in labels:  # a second rewrite by the same person counts on its own line
                label += f" (#{sum(1 for x in labels if x == label or x.startswith(label + ' (#')) + 1})"
            labels.append(label)
            found, problem = sources.staged_groups(rewrite, label, sources.changed_paths(result), texts)
            groups += found
            if problem:
                notes.append(f"{label}: not staged: {problem}")
    groups += sources.linter_groups(result)
    labels += [g.source for g in groups]
    return build(result.head, labels, groups, texts, notes)


# -- the summary's part (pure) ----------------------------------------------------------------

def render(plan: Plan, *, label: str | None = DEFAULT_LABEL, command: str = "/apply",
           max_files: int = 20) -> str:
    """The plan as the review summary shows it: edit count, files, `plan <id>`, how to apply
    (`label` None: the forge's changes carry no labels, and the comment names the plan)."""
    if plan.empty:
        return f"Nothing to apply at `{plan.head[:12]}` (`plan {plan.id}`)."
    n, f = len(plan.edits), len(plan.files)
    out = [f"**Staged plan** `plan {plan.id}`: {n} edit{'' if n == 1 else 's'} "
           f"in {f} file{'' if f == 1 else 's'} at `{plan.head[:12]}`", ""]
    shown = plan.files[:max_files]
    out += [f"- {code(p)}: {sum(1 for e in plan.edits if e.path == p)}" for p in shown]
    if f > len(shown):
        out.append(f"- and {f - len(shown)} more")
    out += ["", "<details><summary>Sources</summary>", ""]
    out += [f"- {code(line)}" for line in plan.sources]
    out += ["", "</details>", ""]
    blocked = workflow_files(plan)
    if blocked:
        out.append(f"This plan changes {', '.join(code(p) for p in blocked)}: files under "
                   f"`{WORKFLOWS}` are never changed by the bot, so applying it will be refused.")
    elif label is None:
        out.append(f"To commit it as one commit on this branch, comment "
                   f"{code(f'{command} {plan.id}')}.")
    else:
        out.append(f"To commit it as one commit on this branch, add the label {code(label)} "
                   f"or comment {code(command)}.")
    return "\n".join(out)
