"""Pure: the exact-match oracle, the diff filter, and the join of their verdicts with the bot's.

- oracle: a head finding is new when no base finding (one-to-one) has the same (path after
  rename, rule, message, line text): the naive exact matcher.
- diff filter: a head finding is new when it sits on an added line of `git diff -M50% -U0
  base head` (reviewdog's -filter-mode=added).
- the bot: introduced or changed is new; preexisting (and unclassified) is not.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from linters import Finding

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(?P<start>\d+)(?:,(?P<count>\d+))? @@")


@dataclass(frozen=True)
class Diff:
    added: Mapping[str, frozenset[int]]  # head path -> added line numbers
    renamed: Mapping[str, str]  # base path -> head path


def parse_diff(text: str) -> Diff:
    added: dict[str, set[int]] = defaultdict(set)
    renamed: dict[str, str] = {}
    source, path = "", ""
    for row in text.splitlines():
        if row.startswith("rename from "):
            source = row[len("rename from "):]
        elif row.startswith("rename to "):
            renamed[source] = row[len("rename to "):]
        elif row.startswith("+++ "):
            path = row[6:] if row.startswith("+++ b/") else ""
        elif row.startswith("@@") and path:
            match = _HUNK.match(row)
            if match:
                start, count = int(match["start"]), int(match["count"] or 1)
                added[path].update(range(start, start + count))
    return Diff({k: frozenset(v) for k, v in added.items()}, renamed)


Key = tuple[str, str, str, str]


def oracle(base: Iterable[Finding], head: Iterable[Finding], renamed: Mapping[str, str],
           base_text: Mapping[str, list[str]], head_text: Mapping[str, list[str]]) -> list[bool]:
    """Per head finding (in order): new by the exact matcher."""
    pool: Counter[Key] = Counter()
    for f in base:
        pool[(renamed.get(f.path, f.path), f.rule, f.message, _line(base_text, f))] += 1
    verdicts = []
    for f in head:
        key = (f.path, f.rule, f.message, _line(head_text, f))
        if pool[key]:
            pool[key] -= 1
            verdicts.append(False)
        else:
            verdicts.append(True)
    return verdicts


def _line(texts: Mapping[str, list[str]], f: Finding) -> str:
    lines = texts.get(f.path) or []
    return lines[f.line - 1] if 0 < f.line <= len(lines) else ""


def diff_filter(head: Iterable[Finding], diff: Diff) -> list[bool]:
    return [f.line in diff.added.get(f.path, frozenset()) for f in head]


@dataclass(frozen=True)
class BotFinding:
    path: str
    line: int
    column: int
    rule: str
    message: str
    scope: str  # introduced | changed | preexisting | unclassified
    where: str | None
    matched_by: str | None


def join(bot: list[BotFinding], head: list[Finding], oracle_new: list[bool],
         diff_new: list[bool]) -> list[dict[str, object]]:
    """One row per finding seen by either side, joined on (path, line, rule), then column."""
    rows: list[dict[str, object]] = []
    theirs: dict[tuple[str, int, str], list[int]] = defaultdict(list)
    for index, f in enumerate(head):
        theirs[(f.path, f.line, f.rule)].append(index)
    for key in theirs:
        theirs[key].sort(key=lambda i: (head[i].column, head[i].message))
    for b in sorted(bot, key=lambda b: (b.path, b.line, b.rule, b.column, b.message)):
        candidates = theirs.get((b.path, b.line, b.rule))
        if candidates:
            i = candidates.pop(0)
            rows.append(_row(b, head[i], oracle_new[i], diff_new[i]))
        else:
            rows.append(_row(b, None, None, None))
    for indexes in theirs.values():
        for i in indexes:
            rows.append(_row(None, head[i], oracle_new[i], diff_new[i]))
    return rows


def _row(b: BotFinding | None, f: Finding | None, oracle_new: bool | None,
         diff_new: bool | None) -> dict[str, object]:
    some = b or f
    assert some is not None
    return {"path": some.path, "line": some.line, "rule": some.rule, "message": some.message,
            "bot": b.scope if b else "absent", "where": b.where if b else None,
            "matched_by": b.matched_by if b else None,
            "oracle": "absent" if oracle_new is None else ("new" if oracle_new else "old"),
            "diff": "absent" if diff_new is None else ("new" if diff_new else "old")}


def disagrees(row: Mapping[str, object]) -> bool:
    bot_new = row["bot"] in ("introduced", "changed")
    return bot_new != (row["oracle"] == "new") or bot_new != (row["diff"] == "new")
