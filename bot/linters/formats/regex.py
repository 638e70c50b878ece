"""One finding per output line that a regular expression matches (stdout, then stderr), like
an errorformat: named groups `file`, `line` and `message`, optionally `column`, `end_line`,
`end_column` (characters, from 1), `severity` and `code`. Lines it does not match are not
findings. The pattern's groups were checked with the settings (`bot.config.regex_problem`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

from bot import proc
from bot.linters.formats import Context, severity
from bot.model import Finding, Span


def read(result: proc.Result, ctx: Context) -> Iterator[Finding]:
    expression = re.compile(ctx.pattern)
    for text in itertools.chain(result.lines(), result.err.splitlines()):
        match = expression.match(text)
        if match is None:
            continue
        groups = match.groupdict()
        path = ctx.path(groups["file"] or "")
        if path is None or not (groups["line"] or "").isdigit() or int(groups["line"]) < 1:
            continue
        line = int(groups["line"])
        column = int(groups.get("column") or 0)
        end_line = int(groups.get("end_line") or line)
        end_column = int(groups.get("end_column") or column)
        span = Span(line, column, end_line, end_column) if column else Span(line, 1, line + 1, 1)
        yield Finding(ctx.tool, groups.get("code") or ctx.tool,
                      severity(groups.get("severity")), groups["message"].strip(), path, span)
