"""Generated Python modules and the edits the verdict invariants are about (pure), and the two
ways their findings are had: from the statements' known flags (synthetic, for the pure
classifier properties) or from the real ruff, with the line maps of the real git diff.

A module is a list of small functions; each statement of a function comes from a pool, some
of which a linter flags (the same rule and message wherever they appear). Values are drawn from
a small range on purpose: equal statements, equal lines and functions alike but for their names
are what the classifier must not confuse."""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from hypothesis import strategies as st

from bot.linters.ruff import _finding as ruff_finding
from bot.model import Finding, Severity, Span
from bot.revisions.diff import FilePatch, LineMap, line_map, parse_patch
from bot.revisions.evidence import FileSide
from bot.verdicts.classify import Inputs
from tests.conftest import require_tool
from tests.verdicts.test_classify import added_map, build, lines


@dataclass(frozen=True)
class Statement:
    """Lines of a function body (indented by the function), `{v}` standing for its value; a
    flagged one says which rule and message a linter gives, at the first `mark` in it."""

    text: str
    rule: str | None = None
    message: str = ""
    mark: str = ""


POOL = (
    Statement("if x == None:\n    return {v}\n", "E711",
              "Comparison to `None` should be `cond is None`", "None"),
    Statement("unused = compute({v})\n", "F841",
              "Local variable `unused` is assigned to but never used", "unused"),
    Statement("if x == True:\n    return {v}\n", "E712",
              "Avoid equality comparisons to `True`; use `x:` for truth checks", "True"),
    Statement("total = compute(x, {v})\n"),
    Statement("print(x, {v})\n"),
    Statement("items = [x, {v}]\n"),
)


@dataclass(frozen=True)
class Function:
    name: str
    body: tuple[tuple[int, int], ...]  # (statement in POOL, its value)
    result: int

    def numbered(self) -> list[tuple[str, bool]]:
        """Its lines, each with whether a statement of the body starts there (a place a line
        can be added)."""
        out = [(f"def {self.name}(x):\n", False)]
        for s, v in self.body:
            text = POOL[s].text.format(v=v).splitlines()
            out += [(f"    {line}\n", k == 0) for k, line in enumerate(text)]
        return [*out, (f"    return {self.result}\n", True)]

    def text(self) -> str:
        return "".join(line for line, _ in self.numbered())


HEADER = "compute = print\n"


@dataclass(frozen=True)
class Module:
    """Functions under a header line, two blank lines before each; `added` puts lines (one
    plain statement each, `print("added", k)`) before the statement at a place (an index into
    `places()`), at its indentation."""

    functions: tuple[Function, ...]
    added: Mapping[int, int] = field(default_factory=dict)

    def text(self) -> str:
        return "".join(line for _, line in self._numbered())

    def where(self, name: str) -> range:
        """The lines (1-based) of a function, for telling which findings are in it."""
        numbers = [n for n, (owner, _) in enumerate(self._numbered(), 1) if owner == name]
        return range(numbers[0], numbers[-1] + 1)

    def places(self, outside: str = "") -> list[int]:
        """The places a line can be added at, but those in the body of the function `outside`."""
        marks = [(owner, indent) for owner, _, indent in self._plain() if indent is not None]
        return [k for k, (owner, indent) in enumerate([*marks, ("", "")])
                if not (outside and owner == outside and indent)]

    def _plain(self) -> list[tuple[str, str, str | None]]:
        """(function or "", line, indentation of a line added before it, None: none can be)."""
        out: list[tuple[str, str, str | None]] = [("", HEADER, "")]
        for f in self.functions:
            out += [("", "\n", ""), ("", "\n", None)]
            out += [(f.name, line, "    " if place else ("" if k == 0 else None))
                    for k, (line, place) in enumerate(f.numbered())]
        return out

    def _numbered(self) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        place = 0
        for owner, line, indent in self._plain():
            if indent is not None:
                out += [(owner if indent else "", f'{indent}print("added", {k})\n')
                        for k in range(self.added.get(place, 0))]
                place += 1
            out.append((owner, line))
        out += [("", f'print("added", {k})\n') for k in range(self.added.get(place, 0))]
        return out


NAMES = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta")
values = st.integers(0, 2)


@st.composite
def functions(draw: st.DrawFn, name: str) -> Function:
    body = draw(st.lists(st.tuples(st.integers(0, len(POOL) - 1), values), min_size=1, max_size=3))
    return Function(name, tuple(body), draw(values))


@st.composite
def modules(draw: st.DrawFn, min_size: int = 2, max_size: int = 5,
            names: Sequence[str] = NAMES) -> Module:
    count = draw(st.integers(min_size, max_size))
    return Module(tuple(draw(functions(name)) for name in names[:count]))


def flagged(module: Module) -> bool:
    return any(POOL[s].rule for f in module.functions for s, _ in f.body)


# --- findings ---------------------------------------------------------------------------------

_FLAGGED = [(re.compile(r"\s*" + re.escape(s.text.splitlines()[0]).replace(r"\{v\}", r"\d+")
                        + r"\s*$"), s) for s in POOL if s.rule]


def synthetic(path: str, text: str) -> list[Finding]:
    """The findings a linter gives for the pool's flagged statements, where they are."""
    out = []
    for number, line in enumerate(lines(text), 1):
        for pattern, statement in _FLAGGED:
            if statement.rule and pattern.match(line):
                column = line.index(statement.mark) + 1
                out.append(Finding("ruff", statement.rule, Severity.ERROR, statement.message, path,
                                   Span(number, column, number, column + len(statement.mark))))
    return out

RUFF_RULES = "E711,E712,F841,F631,F811,B006,RET505"


def ruff(path: str, text: str) -> list[Finding]:
    """The real ruff's findings for one file given as text (read from stdin: nothing written)."""
    exe = require_tool("ruff")
    out = subprocess.run(
        [str(exe), "check", "--isolated", "--no-cache", "--exit-zero", f"--select={RUFF_RULES}",
         "--output-format=json-lines", "--stdin-filename", path, "-"],
        input=text, capture_output=True, text=True, check=True).stdout
    return [ruff_finding(json.loads(line), path) for line in out.splitlines() if line.strip()]


def ruff_format(text: str, width: int) -> str:
    """The text as the real ruff formatter writes it at a line length."""
    exe = require_tool("ruff")
    return subprocess.run(
        [str(exe), "format", "--isolated", "--no-cache", f"--line-length={width}",
         "--stdin-filename", "a.py", "-"],
        input=text, capture_output=True, text=True, check=True).stdout


def git_line_map(base: str, head: str) -> LineMap:
    """The line map of the real git diff (histogram, as the pipeline asks for it)."""
    with tempfile.TemporaryDirectory() as tmp:
        old, new = Path(tmp, "old"), Path(tmp, "new")
        old.write_text(base, "utf-8")
        new.write_text(head, "utf-8")
        patch = subprocess.run(
            ["git", "diff", "--no-index", "--no-ext-diff", "--no-textconv", "--no-color",
             "--histogram", "-U0", str(old), str(new)], capture_output=True, check=False).stdout
    patches = parse_patch(patch)
    found = patches[0] if patches else FilePatch("a.py", "a.py", "modified")
    return line_map(found, len(lines(base)), len(lines(head)))


def inputs(base_files: Mapping[str, str], head_files: Mapping[str, str], real: bool,
           pairs: Mapping[str, str | None] | None = None) -> Inputs:
    """The classifier's inputs for a change: findings synthetic or from the real ruff, line maps
    from difflib (synthetic) or from the real git diff (real)."""
    find = ruff if real else synthetic
    base = [x for path, text in sorted(base_files.items()) for x in find(path, text)]
    head = [x for path, text in sorted(head_files.items()) for x in find(path, text)]
    built = build(base_files, head_files, base, head, pairs)
    if not real:
        return built
    maps = {}
    for path, text in head_files.items():
        base_path = built.evidence.base_path(path)
        maps[path] = added_map(text, path) if base_path is None else git_line_map(
            base_files[base_path], text)
    return replace(built, evidence=replace(
        built.evidence, maps=maps, base_files={p: FileSide(lines(t)) for p, t in base_files.items()}))
