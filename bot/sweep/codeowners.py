"""CODEOWNERS: who owns a path. Pure.

GitHub's rules: the first file found of `.github/CODEOWNERS`, `CODEOWNERS`,
`docs/CODEOWNERS`; gitignore-like patterns; the last matching line wins; a pattern with no
owners leaves the path unowned.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

LOCATIONS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")


@dataclass(frozen=True)
class Rule:
    pattern: re.Pattern[str]
    owners: tuple[str, ...]


def parse(text: str) -> tuple[Rule, ...]:
    rules = []
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not line:
            continue
        pattern, *owners = line.split()
        rules.append(Rule(_compile(pattern), tuple(owners)))
    return tuple(rules)


def owners(rules: tuple[Rule, ...], path: str) -> tuple[str, ...]:
    for rule in reversed(rules):
        if rule.pattern.search(path):
            return rule.owners
    return ()


def _compile(pattern: str) -> re.Pattern[str]:
    anchored = pattern.startswith("/") or "/" in pattern.rstrip("/")
    body = pattern.strip("/")
    directory = pattern.endswith("/")
    out = []
    index = 0
    while index < len(body):
        if body.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
        elif body.startswith("**", index):
            out.append(".*")
            index += 2
        elif body[index] == "*":
            out.append("[^/]*")
            index += 1
        elif body[index] == "?":
            out.append("[^/]")
            index += 1
        else:
            out.append(re.escape(body[index]))
            index += 1
    start = "^" if anchored else r"(?:^|/)"
    # A pattern names a file or a folder: everything under a matching folder is matched.
    if directory:
        end = "/"
    elif body.endswith("*") and not body.endswith("**"):
        end = "$"  # `docs/*`: the folder's files, not its subfolders
    else:
        end = "(?:$|/)"
    return re.compile(start + "".join(out) + end)
