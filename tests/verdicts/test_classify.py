"""The pure classifier, table-driven: hand-built findings, file texts and line maps per pass.

Line maps come from the real parser (`bot.revisions.diff`) fed a -U0 patch that difflib writes in git's
format, so every case exercises the same map the pipeline builds. The last tests run the real
ruff on real repositories for file-level findings (CPY001, D100, INP001 at the empty range 1:1).
"""

from __future__ import annotations

import difflib
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.model import Finding, Severity, Span, Verdict
from bot.revisions.diff import ADDED, FilePatch, LineMap, line_map, parse_patch
from bot.revisions.evidence import Evidence, FileSide
from bot.verdicts.classify import Inputs, classify, is_file_level
from tests.conftest import GitRepo, require_tool
from tests.test_scenarios import FILE_LEVEL_CONFIG, review, start, table

T = TypeVar("T")

# --- building inputs by hand ------------------------------------------------------------------


def lines(text: str) -> tuple[str, ...]:
    return tuple(text.splitlines(keepends=True))


def lmap(base: str, head: str, path: str = "a.py") -> LineMap:
    """The pipeline's line map for two texts, from a -U0 patch in git's format."""
    hunks = list(difflib.unified_diff(lines(base), lines(head), f"a/{path}", f"b/{path}", n=0))
    raw = f"diff --git a/{path} b/{path}\n" + "".join(h if h.endswith("\n") else h + "\n" for h in hunks)
    patches = parse_patch(raw.encode())
    patch = patches[0] if patches else FilePatch(path, path, "modified")
    return line_map(patch, len(lines(base)), len(lines(head)))


def added_map(head: str, path: str) -> LineMap:
    return line_map(FilePatch(None, path, "added"), 0, len(lines(head)))


def f(rule: str, line: int, message: str = "msg", *, path: str = "a.py", col: int = 1,
      end: tuple[int, int] | None = None, severity: Severity = Severity.ERROR, tool: str = "ruff",
      file_level: bool = False) -> Finding:
    end_line, end_col = end if end is not None else (line, col + 3)
    return Finding(tool, rule, severity, message, path, Span(line, col, end_line, end_col),
                   file_level=file_level)


def file_start(rule: str, message: str, path: str = "a.py") -> Finding:
    """A finding about the whole file, as ruff reports CPY001/D100/INP001: empty range at 1:1."""
    return f(rule, 1, message, path=path, end=(1, 1))


def build(base_files: Mapping[str, str], head_files: Mapping[str, str], base: Sequence[Finding],
          head: Sequence[Finding], pairs: Mapping[str, str | None] | None = None,
          deleted: Sequence[str] = (), unbaselined: Sequence[tuple[str, str]] = ()) -> Inputs:
    pairs = dict(pairs or {})
    for path in head_files:
        if path not in pairs and path not in base_files:
            pairs[path] = None  # a path only the head has is an added file
    maps: dict[str, LineMap] = {}
    for path, text in head_files.items():
        base_path = pairs.get(path, path)
        maps[path] = added_map(text, path) if base_path is None else lmap(base_files[base_path], text, path)
    return Inputs(base=list(base), head=list(head), evidence=Evidence(
        pairs=pairs, maps=maps, base_files={p: FileSide(lines(t)) for p, t in base_files.items()},
        head_files={p: FileSide(lines(t)) for p, t in head_files.items()},
        deleted=frozenset(deleted)), unbaselined=frozenset(unbaselined))


Row = tuple[str, str, int, str, str | None]


def rows(verdicts: Sequence[Verdict]) -> list[Row]:
    """(rule, path, line, scope, matched_by or where) of each verdict."""
    return sorted((v.finding.rule, v.finding.path, v.finding.line, v.scope,
                   v.matched_by if v.matched_by else v.where) for v in verdicts)


# --- the table --------------------------------------------------------------------------------

FILL = "".join(f"filler_{i} = {i}\n" for i in range(8))
UNUSED = "Local variable `value` is assigned to but never used"
BLOCK = "alpha_one = 1\nalpha_two = 2\nresult = compute_it({})\nomega_one = 1\nomega_two = 2\n"
IMPORTS = BLOCK.replace("result = compute_it({})", "import os, sys")
REFLOWED = "def f():\n    result = compute(\n        undefined_name, 1, 2\n    )\n    return result\n"
CALL = "def f():\n    value = compute_something()\n    return 1\n"
MOVED = "def moved(payload):\n    foo = compute_things(payload)\n    return payload\n"
UNUSED_FOO = "Local variable `foo` is assigned to but never used"
OTHER = "def other_one():\n    return undefined_thing + 1\n"
LOW = "def low(flag):\n    print_it(flag)\n    return None\n"


@dataclass(frozen=True)
class Case:
    name: str
    base_files: dict[str, str]
    head_files: dict[str, str]
    base: tuple[Finding, ...]
    head: tuple[Finding, ...]
    verdicts: list[Row]
    fixed: list[tuple[str, str, int]] = field(default_factory=list)
    pairs: dict[str, str | None] = field(default_factory=dict)
    deleted: tuple[str, ...] = ()
    reasons: tuple[str, ...] | None = None  # of the single head verdict, when given

    def inputs(self) -> Inputs:
        return build(self.base_files, self.head_files, self.base, self.head, self.pairs, self.deleted)


CASES = [
    Case("P1: lines inserted above",
         {"a.py": CALL}, {"a.py": "import os\n" + FILL + CALL},
         (f("F841", 2, UNUSED),), (f("F841", 11, UNUSED),),
         [("F841", "a.py", 11, "preexisting", "P1")]),
    Case("P1: re-indented line (whitespace only) is the same line",
         {"a.py": "if a:\n  value = compute_something()\n"},
         {"a.py": "if a:\n    value = compute_something()\n"},
         (f("F841", 2, UNUSED, col=3),), (f("F841", 2, UNUSED, col=5),),
         [("F841", "a.py", 2, "preexisting", "P1")]),
    Case("PT (before P2): edited line keeps its finding when the message shape stays",
         {"a.py": "def f(x):\n    if x == None:\n        return 1\n"},
         {"a.py": "def f(y):\n    if y == None:\n        return 1\n"},
         (f("E711", 2, "Comparison to `None` should be `cond is None`"),),
         (f("E711", 2, "Comparison to `None` should be `cond is None`"),),
         [("E711", "a.py", 2, "preexisting", "PT")]),
    Case("PT (before P2): variable renamed in place is changed (message-args)",
         {"a.py": "def f():\n    foo = 1\n    return 2\n"},
         {"a.py": "def f():\n    bar = 1\n    return 2\n"},
         (f("F841", 2, "Local variable `foo` is assigned to but never used"),),
         (f("F841", 2, "Local variable `bar` is assigned to but never used"),),
         [("F841", "a.py", 2, "changed", "PT")], reasons=("message-args",)),
    Case("P3: line moved within the file, same text and message",
         {"a.py": "import os\nfirst_block = 1\nsecond_block = 2\nresult_value = compute_it()\nend = 0\n"},
         {"a.py": "import os\nresult_value = compute_it()\nfirst_block = 1\nsecond_block = 2\nend = 0\n"},
         (f("F821", 4, "Undefined name `compute_it`"),), (f("F821", 2, "Undefined name `compute_it`"),),
         [("F821", "a.py", 2, "preexisting", "P3")]),
    Case("P4b: moved block whose flagged line was edited: unique surrounding block",
         {"a.py": "keep_this = 0\n" + BLOCK.format(1) + FILL},
         {"a.py": "keep_this = 0\n" + FILL + BLOCK.format(2)},
         (f("F821", 4, "Undefined name `compute_it`"),), (f("F821", 12, "Undefined name `compute_it`"),),
         [("F821", "a.py", 12, "preexisting", "P4b")]),
    Case("P4: moved line, two findings share its block, messages reworded: paired by column",
         {"a.py": "keep_this = 0\n" + IMPORTS + FILL},
         {"a.py": "keep_this = 0\n" + FILL + IMPORTS},
         (f("F401", 4, "`os` unused", col=8), f("F401", 4, "`sys` unused", col=12)),
         (f("F401", 12, "`os` is unused", col=8), f("F401", 12, "`sys` is unused", col=12)),
         [("F401", "a.py", 12, "changed", "P4"), ("F401", "a.py", 12, "changed", "P4")]),
    Case("PT (before P2): reflowed call, the finding on the continuation line the edit paired",
         {"a.py": "def f():\n    result = compute(undefined_name, 1, 2)\n    return result\n"},
         {"a.py": REFLOWED},
         (f("F821", 2, "Undefined name `undefined_name`", col=22),),
         (f("F821", 3, "Undefined name `undefined_name`", col=9),),
         [("F821", "a.py", 3, "preexisting", "PT")]),
    Case("PT: reflowed statement: its tokens arrived on the head line",
         {"a.py": "def f():\n    result = compute(undefined_name, 1, 2)\n    return result\n"},
         {"a.py": REFLOWED},
         (f("F821", 2, "Incompatible types in assignment", col=5),),
         (f("F821", 2, "Incompatible types in assignment", col=5),),
         [("F821", "a.py", 2, "preexisting", "PT")]),
    Case("PT: wrapped signature: the flagged default moved three lines down",
         {"a.py": "def f(a, b=[], c=None):\n    return a\n"},
         {"a.py": "def f(\n    a,\n    b=[],\n    c=None,\n):\n    return a\n"},
         (f("B006", 1, "Do not use mutable data structures for argument defaults", col=12),),
         (f("B006", 3, "Do not use mutable data structures for argument defaults", col=7),),
         [("B006", "a.py", 3, "preexisting", "PT")]),
    Case("P5: rewritten statement: same enclosing definition and message",
         {"a.py": "def f():\n    result = compute(undefined_name, 1, 2)\n"
                  "    keep_this_call_as_it_is()\n    return result\n"},
         {"a.py": "def f():\n    keep_this_call_as_it_is()\n    outcome = [undefined_name]\n"
                  "    return outcome\n"},
         (f("F821", 2, "Undefined name `undefined_name`", col=22),),
         (f("F821", 3, "Undefined name `undefined_name`", col=16),),
         [("F821", "a.py", 3, "preexisting", "P5")]),
    Case("P6: same line text elsewhere, message args changed, head line unchanged",
         {"a.py": "x = compute_thing(a)\n" + FILL + "x = compute_thing(a)\n"},
         {"a.py": "x = compute_thing(a)\n" + FILL},
         (f("F821", 10, "Undefined name `a`"),), (f("F821", 1, "Undefined name `b`"),),
         [("F821", "a.py", 1, "changed", "P6")], reasons=("message-args",)),
    Case("P7: code moved to another changed file",
         {"a.py": "import os\n" + CALL + "stay = 1\n", "b.py": "other = 1\n"},
         {"a.py": "import os\nstay = 1\n", "b.py": "other = 1\n" + CALL},
         (f("F841", 3, UNUSED),), (f("F841", 3, UNUSED, path="b.py"),),
         [("F841", "b.py", 3, "preexisting", "P7")]),
    Case("P7: a file rewritten below the rename threshold keeps a verbatim function",
         {"old.py": CALL + FILL}, {"new.py": CALL + FILL.replace("filler", "other")},
         (f("F841", 2, UNUSED, path="old.py"),), (f("F841", 2, UNUSED, path="new.py"),),
         [("F841", "new.py", 2, "preexisting", "P7")], deleted=("old.py",)),
    Case("P8: file-level finding, lines inserted above line 1",
         {"a.py": "import os\n"}, {"a.py": "#!/usr/bin/env python\n# a comment\nimport os\n"},
         (file_start("D100", "Missing docstring in public module"),),
         (file_start("D100", "Missing docstring in public module"),),
         [("D100", "a.py", 1, "preexisting", "P8")]),
    Case("P8: the file_level flag counts whatever the span",
         {"a.py": "import os\n"}, {"a.py": "\n\nimport os\n"},
         (f("invalid-syntax", 1, "Expected an expression", file_level=True),),
         (f("invalid-syntax", 1, "Expected an expression", file_level=True, end=(1, 9)),),
         [("invalid-syntax", "a.py", 1, "preexisting", "P8")]),
    Case("P8s: file-level finding whose message args changed",
         {"a.py": "x = 1\n"}, {"a.py": "# c\nx = 1\n"},
         (file_start("X1", "Module `a` lacks `thing`"),), (file_start("X1", "Module `a` lacks `other`"),),
         [("X1", "a.py", 1, "changed", "P8s")], reasons=("message-args",)),
    Case("line 1 with text is not file level: an unused import that moved down stays by the map",
         {"a.py": "import os\nx = 1\n"}, {"a.py": "import sys\nimport os\nx = 1\n"},
         (f("F401", 1, "`os` imported but unused", col=8, end=(1, 10)),),
         (f("F401", 1, "`sys` imported but unused", col=8, end=(1, 11)),
          f("F401", 2, "`os` imported but unused", col=8, end=(2, 10))),
         [("F401", "a.py", 1, "introduced", "diff"), ("F401", "a.py", 2, "preexisting", "P1")]),
    Case("file level and line 1 do not partner each other",
         {"a.py": "import os\n"}, {"a.py": "import os\n"},
         (f("F401", 1, "`os` imported but unused", col=8, end=(1, 10)),),
         (file_start("F401", "`os` imported but unused"),),
         [("F401", "a.py", 1, "introduced", "elsewhere")], fixed=[("F401", "a.py", 1)]),
    Case("docstring deleted: file-level finding introduced in the diff",
         {"a.py": '"""Doc."""\nimport os\n'}, {"a.py": "import os\n"},
         (), (file_start("D100", "Missing docstring in public module"),),
         [("D100", "a.py", 1, "introduced", "diff")]),
    Case("file-level finding in a file the change did not edit is introduced elsewhere",
         {"a.py": "import os\n"}, {"a.py": "import os\n"},
         (), (file_start("INP001", "File `a.py` is part of an implicit namespace package."),),
         [("INP001", "a.py", 1, "introduced", "elsewhere")]),
    Case("file-level finding in a pure rename is in the diff",
         {"_private.py": "x = 1\n"}, {"public.py": "x = 1\n"},
         (), (file_start("D100", "Missing docstring in public module", "public.py"),),
         [("D100", "public.py", 1, "introduced", "diff")], pairs={"public.py": "_private.py"}),
    Case("copies outnumber originals: the copy on the added line is the new one",
         {"a.py": "x = 1\nif x == None:\n    pass\n"},
         {"a.py": "x = 1\nif x == None:\n    pass\nif x == None:\n    pass\n"},
         (f("E711", 2, "Comparison to `None`"),),
         (f("E711", 2, "Comparison to `None`"), f("E711", 4, "Comparison to `None`")),
         [("E711", "a.py", 2, "preexisting", "P1"), ("E711", "a.py", 4, "introduced", "diff")]),
    Case("copies outnumber originals, inserted between two",
         {"a.py": "x = 1\nif x == None:\n    pass\ny = 2\nif x == None:\n    pass\n"},
         {"a.py": "x = 1\nif x == None:\n    pass\nw = 0\nif x == None:\n    pass\ny = 2\n"
                  "if x == None:\n    pass\n"},
         (f("E711", 2, "Comparison to `None`"), f("E711", 5, "Comparison to `None`")),
         (f("E711", 2, "Comparison to `None`"), f("E711", 5, "Comparison to `None`"),
          f("E711", 8, "Comparison to `None`")),
         # difflib's map calls lines 2-4 added (git's histogram would say 4-6): the one on them is new.
         [("E711", "a.py", 2, "introduced", "diff"), ("E711", "a.py", 5, "preexisting", "P1"),
          ("E711", "a.py", 8, "preexisting", "P1")]),
    Case("rename: findings follow the file",
         {"old.py": CALL}, {"new.py": "# moved\n" + CALL},
         (f("F841", 2, UNUSED, path="old.py"),), (f("F841", 3, UNUSED, path="new.py"),),
         [("F841", "new.py", 3, "preexisting", "P1")], pairs={"new.py": "old.py"}),
    Case("copy: a new file that shares content is new",
         {"a.py": CALL}, {"a.py": CALL, "copy.py": CALL},
         (f("F841", 2, UNUSED),), (f("F841", 2, UNUSED), f("F841", 2, UNUSED, path="copy.py")),
         [("F841", "a.py", 2, "preexisting", "P1"), ("F841", "copy.py", 2, "introduced", "diff")]),
    Case("deleted file: its findings are fixed",
         {"gone.py": "import os\nimport sys\n", "b.py": "x = 1\n"}, {"b.py": "x = 1\n"},
         (f("F401", 1, "`os`", path="gone.py"), f("F401", 2, "`sys`", path="gone.py")), (),
         [], fixed=[("F401", "gone.py", 1), ("F401", "gone.py", 2)], deleted=("gone.py",)),
    Case("a new file that only shares a deleted file's name is not its pair (P7 may still)",
         {"a.py": CALL + "import os\n"}, {"a.py": "stay = 0\n" + CALL + "import os\n"},
         (f("F841", 2, UNUSED), f("F401", 5, "`os`")), (f("F841", 3, UNUSED), f("F401", 6, "`os`")),
         [("F401", "a.py", 6, "introduced", "diff"), ("F841", "a.py", 3, "preexisting", "P7")],
         fixed=[("F401", "a.py", 5)], pairs={"a.py": None}),
    Case("changed: severity up on an unchanged line",
         {"a.py": CALL}, {"a.py": CALL},
         (f("F841", 2, UNUSED, severity=Severity.WARNING),), (f("F841", 2, UNUSED),),
         [("F841", "a.py", 2, "changed", "P1")], reasons=("severity-up",)),
    Case("changed: severity down",
         {"a.py": CALL}, {"a.py": CALL},
         (f("F841", 2, UNUSED),), (f("F841", 2, UNUSED, severity=Severity.INFO),),
         [("F841", "a.py", 2, "changed", "P1")], reasons=("severity-down",)),
    Case("changed: a reworded message on a mapped line",
         {"a.py": CALL}, {"a.py": CALL},
         (f("F841", 2, "old wording"),), (f("F841", 2, "new words entirely"),),
         [("F841", "a.py", 2, "changed", "P1")], reasons=("message",)),
    Case("a number alone moving in the message is not a change",
         {"a.py": CALL}, {"a.py": CALL},
         (f("E501", 2, "Line too long (90 > 88)"),), (f("E501", 2, "Line too long (95 > 88)"),),
         [("E501", "a.py", 2, "preexisting", "P1")], reasons=()),
    Case("line numbers inside messages are normalised",
         {"a.py": "import os\nimport os\n"}, {"a.py": "\n\n\nimport os\nimport os\n"},
         (f("F811", 2, "Redefinition of unused `os` from line 1"),),
         (f("F811", 5, "Redefinition of unused `os` from line 4"),),
         [("F811", "a.py", 5, "preexisting", "P1")], reasons=()),
    Case("other rule on the same line does not partner",
         {"a.py": CALL}, {"a.py": CALL},
         (f("E501", 2, UNUSED),), (f("F841", 2, UNUSED),),
         [("F841", "a.py", 2, "introduced", "elsewhere")], fixed=[("E501", "a.py", 2)]),
    Case("other tool with the same rule does not partner",
         {"a.py": CALL}, {"a.py": CALL},
         (f("F841", 2, UNUSED, tool="other"),), (f("F841", 2, UNUSED),),
         [("F841", "a.py", 2, "introduced", "elsewhere")], fixed=[("F841", "a.py", 2)]),
    # --- code moved between changed files (P7: verbatim, P7m: edited inside the moved block) ---
    Case("move: the flagged line edited inside the moved block, finding changed",
         {"a.py": "import os\n" + MOVED + "stay = 1\n", "b.py": "other = 1\n"},
         {"a.py": "import os\nstay = 1\n", "b.py": "other = 1\n" + MOVED.replace("foo", "bar")},
         (f("F841", 3, UNUSED_FOO),), (f("F841", 3, UNUSED_FOO.replace("foo", "bar"), path="b.py"),),
         [("F841", "b.py", 3, "changed", "P7m")], reasons=("message-args",)),
    Case("move: a line above the flagged one edited, finding untouched",
         {"a.py": "import os\n" + MOVED + "stay = 1\n", "b.py": "other = 1\n"},
         {"a.py": "import os\nstay = 1\n",
          "b.py": "other = 1\n" + MOVED.replace("moved(", "moved_renamed(")},
         (f("F841", 3, UNUSED_FOO),), (f("F841", 3, UNUSED_FOO, path="b.py"),),
         [("F841", "b.py", 3, "preexisting", "P7")]),
    Case("move: a genuinely new finding inside the moved block is introduced",
         {"a.py": "import os\n" + MOVED + "stay = 1\n", "b.py": "other = 1\n"},
         {"a.py": "import os\nstay = 1\n",
          "b.py": "other = 1\n" + MOVED.replace("    return", "    extra_value = 2\n    return")},
         (f("F841", 3, UNUSED_FOO),),
         (f("F841", 3, UNUSED_FOO, path="b.py"), f("F841", 5, "Local variable `extra_value`", path="b.py")),
         [("F841", "b.py", 3, "preexisting", "P7"), ("F841", "b.py", 5, "introduced", "diff")]),
    Case("move: the destination's map calls the moved lines modified",
         {"a.py": "import os\n" + MOVED + "stay = 1\n", "b.py": "other = 1\nfoo = compute_old()\n"},
         {"a.py": "import os\nstay = 1\n", "b.py": "other = 1\n" + MOVED},
         (f("F841", 3, UNUSED_FOO),), (f("F841", 3, UNUSED_FOO, path="b.py"),),
         [("F841", "b.py", 3, "preexisting", "P7")]),
    Case("move: a low-information flagged line carried with its block",
         {"a.py": "import os\n" + LOW + "stay = 1\n", "b.py": "other = 1\n"},
         {"a.py": "import os\nstay = 1\n", "b.py": "other = 1\n" + LOW},
         (f("RET501", 4, "Do not explicitly `return None`"),),
         (f("RET501", 4, "Do not explicitly `return None`", path="b.py"),),
         [("RET501", "b.py", 4, "preexisting", "P7")]),
    Case("move: source file deleted, destination modified",
         {"a.py": "import os\n" + MOVED, "b.py": "other = 1\n"}, {"b.py": "other = 1\n" + MOVED},
         (f("F841", 3, UNUSED_FOO),), (f("F841", 3, UNUSED_FOO, path="b.py"),),
         [("F841", "b.py", 3, "preexisting", "P7")], deleted=("a.py",)),
    Case("move: source modified, destination a new file, edited on the way",
         {"a.py": "import os\n" + MOVED + "stay = 1\n"},
         {"a.py": "import os\nstay = 1\n", "new.py": "import sys\n" + MOVED.replace("foo", "bar")},
         (f("F841", 3, UNUSED_FOO),), (f("F841", 3, UNUSED_FOO.replace("foo", "bar"), path="new.py"),),
         [("F841", "new.py", 3, "changed", "P7m")]),
    Case("move: two blocks to two files, one new, in swapped order",
         {"a.py": "import os\n" + MOVED + OTHER + "stay = 1\n", "b.py": "other = 1\n"},
         {"a.py": "import os\nstay = 1\n", "b.py": "other = 1\n" + OTHER, "c.py": MOVED},
         (f("F841", 3, UNUSED_FOO), f("F821", 6, "Undefined name `undefined_thing`")),
         (f("F841", 2, UNUSED_FOO, path="c.py"),
          f("F821", 3, "Undefined name `undefined_thing`", path="b.py")),
         [("F821", "b.py", 3, "preexisting", "P7"), ("F841", "c.py", 2, "preexisting", "P7")]),
    Case("move: blocks reordered on the way into one file",
         {"a.py": "import os\n" + MOVED + OTHER + "stay = 1\n", "b.py": "other = 1\n"},
         {"a.py": "import os\nstay = 1\n", "b.py": "other = 1\n" + OTHER + MOVED},
         (f("F841", 3, UNUSED_FOO), f("F821", 6, "Undefined name `undefined_thing`")),
         (f("F841", 5, UNUSED_FOO, path="b.py"),
          f("F821", 3, "Undefined name `undefined_thing`", path="b.py")),
         [("F821", "b.py", 3, "preexisting", "P7"), ("F841", "b.py", 5, "preexisting", "P7")]),
    Case("move: a block duplicated into two files: the copy carrying more of it is the move",
         {"a.py": "import os\n" + MOVED + "stay = 1\n"},
         {"a.py": "import os\nstay = 1\n", "b.py": MOVED.splitlines(keepends=True)[1],
          "c.py": MOVED},
         (f("F841", 3, UNUSED_FOO),),
         (f("F841", 1, UNUSED_FOO, path="b.py"), f("F841", 2, UNUSED_FOO, path="c.py")),
         [("F841", "b.py", 1, "introduced", "diff"), ("F841", "c.py", 2, "preexisting", "P7")]),
    Case("move: a block duplicated whole into two files: the first path is the move",
         {"a.py": "import os\n" + MOVED + "stay = 1\n"},
         {"a.py": "import os\nstay = 1\n", "c.py": MOVED, "b.py": MOVED},
         (f("F841", 3, UNUSED_FOO),),
         (f("F841", 2, UNUSED_FOO, path="c.py"), f("F841", 2, UNUSED_FOO, path="b.py")),
         [("F841", "b.py", 2, "preexisting", "P7"), ("F841", "c.py", 2, "introduced", "diff")]),
    Case("move: out of a renamed file into another",
         {"old.py": "import os\n" + MOVED + FILL, "b.py": "other = 1\n"},
         {"new.py": "import os\n" + FILL, "b.py": "other = 1\n" + MOVED},
         (f("F841", 3, UNUSED_FOO, path="old.py"),), (f("F841", 3, UNUSED_FOO, path="b.py"),),
         [("F841", "b.py", 3, "preexisting", "P7")], pairs={"new.py": "old.py"}),
    Case("move: into a renamed file from another",
         {"old.py": FILL, "a.py": "import os\n" + MOVED + "stay = 1\n"},
         {"new.py": FILL + MOVED.replace("foo", "bar"), "a.py": "import os\nstay = 1\n"},
         (f("F841", 3, UNUSED_FOO),), (f("F841", 10, UNUSED_FOO.replace("foo", "bar"), path="new.py"),),
         [("F841", "new.py", 10, "changed", "P7m")], pairs={"new.py": "old.py"}),
    Case("move: a copy whose source stays is new",
         {"a.py": "import os\n" + MOVED, "b.py": "other = 1\n"},
         {"a.py": "import os\n" + MOVED, "b.py": "other = 1\n" + MOVED},
         (f("F841", 3, UNUSED_FOO),), (f("F841", 3, UNUSED_FOO), f("F841", 3, UNUSED_FOO, path="b.py")),
         [("F841", "a.py", 3, "preexisting", "P1"), ("F841", "b.py", 3, "introduced", "diff")]),
    Case("low-information line in another function is not absorbed (S38)",
         {"a.py": "def f():\n    print(1)\n    return None\n\n\ndef keep():\n    return 5\n"},
         {"a.py": "def keep():\n    return 5\n\n\ndef g():\n    print(2)\n    return None\n"},
         (f("RET501", 3, "Do not explicitly `return None`"),),
         (f("RET501", 7, "Do not explicitly `return None`"),),
         [("RET501", "a.py", 7, "introduced", "diff")], fixed=[("RET501", "a.py", 3)]),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_matching_table(case: Case) -> None:
    verdicts, fixed, _ = classify(case.inputs())
    assert rows(verdicts) == case.verdicts
    assert sorted((v.finding.rule, v.finding.path, v.finding.line) for v in fixed) == case.fixed
    if case.reasons is not None:
        (verdict,) = verdicts
        assert verdict.reasons == case.reasons


def test_a_message_naming_its_renamed_file_is_not_a_change() -> None:
    inputs = build({"pkg/old.py": "x = 1\n"}, {"pkg/new.py": "x = 1\n"},
                   [file_start("INP001", "File `pkg/old.py` is part of an implicit namespace package.",
                               "pkg/old.py")],
                   [file_start("INP001", "File `pkg/new.py` is part of an implicit namespace package.",
                               "pkg/new.py")], pairs={"pkg/new.py": "pkg/old.py"})
    (verdict,), _, _ = classify(inputs)
    assert verdict.scope == "preexisting"


def test_moves_too_large_to_trace_are_said_so(monkeypatch: pytest.MonkeyPatch) -> None:
    (case,) = [c for c in CASES if c.name.startswith("move: source file deleted")]
    monkeypatch.setattr("bot.revisions.moves.BUDGET", 1)
    verdicts, fixed, notes = classify(case.inputs())
    assert notes == ["1 pair(s) of changed files too large to trace line by line: findings in "
                     "code moved between them were matched only through the definition around them"]
    # The moved function is still recognised whole, by its tokens.
    assert [(v.scope, v.matched_by) for v in verdicts] == [("preexisting", "PD")] and not fixed


def test_p4_pairs_two_findings_of_one_line_by_column() -> None:
    (case,) = [c for c in CASES if c.name.startswith("P4:")]
    verdicts, _, _ = classify(case.inputs())
    assert sorted((v.finding.message, v.base.message if v.base else "") for v in verdicts) == [
        ("`os` is unused", "`os` unused"), ("`sys` is unused", "`sys` unused")]


def test_the_new_copy_is_on_a_line_the_diff_added() -> None:
    """S17: an identical flagged line inserted above two: whichever copy the map calls added
    is the introduced one, and the other two stay."""
    line = "if x == None:\n    pass\n"
    base, head = "x = 1\n" + line * 2, "x = 1\n" + line * 3
    found = [f("E711", n, "Comparison to `None`") for n in (2, 4, 6)]
    inputs = build({"a.py": base}, {"a.py": head}, found[:2], found)
    verdicts, fixed, _ = classify(inputs)
    (new,) = [v for v in verdicts if v.scope == "introduced"]
    assert inputs.evidence.maps["a.py"].head_status(new.finding.line) == ADDED
    assert [v.scope for v in verdicts].count("preexisting") == 2 and not fixed


# --- definitions reordered within one file ----------------------------------------------------

NONE_MSG = "Comparison to `None` should be `cond is None`"


def flagged(name: str, value: int) -> str:
    """A small function with one E711 on its second line; `value` tells it from the others."""
    return f"def {name}(x):\n    if x == None:\n        return {value}\n    return 2\n"


def reordered(base_names: Sequence[str], head_names: Sequence[str]) -> Inputs:
    """Functions written in another order (`zeta` only the head has): one finding in each, the
    same rule and message, as ruff reports them."""
    value = {name: i for i, name in enumerate([*base_names, "zeta"])}

    def side(names: Sequence[str]) -> tuple[str, list[Finding]]:
        text = "compute = int\n\n\n" + "\n\n".join(flagged(n, value[n]) for n in names)
        return text, [f("E711", n, NONE_MSG, col=8, end=(n, 12))
                      for n, line in enumerate(lines(text), 1) if "None" in line]

    (base_text, base), (head_text, head) = side(base_names), side(head_names)
    return build({"a.py": base_text}, {"a.py": head_text}, base, head)


FIVE = ["alpha", "beta", "gamma", "delta", "epsilon"]


def test_five_functions_written_in_reverse_order_stay_preexisting() -> None:
    verdicts, fixed, _ = classify(reordered(FIVE, FIVE[::-1]))
    assert [v.scope for v in verdicts] == ["preexisting"] * 5 and not fixed


def test_a_new_function_among_reordered_ones_is_the_only_introduced() -> None:
    verdicts, fixed, _ = classify(reordered(FIVE[:4], ["delta", "beta", "zeta", "alpha", "gamma"]))
    # zeta is the third function: its finding is on line 5 + 2 * 6.
    assert [(v.finding.line, v.scope) for v in verdicts if v.scope != "preexisting"] == [
        (17, "introduced")]
    assert not fixed


@pytest.mark.parametrize("order", [
    ["beta", "alpha", "gamma", "delta", "epsilon"], ["epsilon", "alpha", "beta", "gamma", "delta"],
    ["beta", "delta", "alpha", "epsilon", "gamma"], ["gamma", "epsilon", "beta", "alpha", "delta"]])
def test_any_order_of_the_functions_keeps_every_finding(order: list[str]) -> None:
    verdicts, fixed, _ = classify(reordered(FIVE, order))
    assert [v.scope for v in verdicts] == ["preexisting"] * 5 and not fixed


def test_two_identical_functions_swapped_stay_preexisting() -> None:
    twin = flagged("twin", 0)
    text = "compute = int\n\n\n" + twin + "\n\n" + flagged("other", 1) + "\n\n" + twin
    head = "compute = int\n\n\n" + twin + "\n\n" + twin + "\n\n" + flagged("other", 1)
    found = [f("E711", n, NONE_MSG, col=8, end=(n, 12)) for n in (5, 11, 17)]
    verdicts, fixed, _ = classify(build({"a.py": text}, {"a.py": head}, found, found))
    assert [v.scope for v in verdicts] == ["preexisting"] * 3 and not fixed



def checks(name: str, count: int = 1) -> str:
    return f"def {name}(x):\n" + "    if x == None:\n        return 0\n" * count + "    return 0\n"


def none_findings(text: str, path: str = "a.py") -> list[Finding]:
    return [f("E711", n, NONE_MSG, col=13, end=(n, 17), path=path)
            for n, line in enumerate(lines(text), 1) if "None" in line]


def test_the_copy_of_a_function_holds_the_new_findings_not_its_original() -> None:
    """The line map pairs the original's lines with the copy's (the diff calls the original's
    body added): the original, held once and unchanged on both sides, keeps its finding."""
    base = "compute = print\n\n\n" + checks("alpha") + "\n\n" + checks("beta", 2)
    head = ("compute = print\n\n\n" + checks("alpha") + "\n\n" + checks("copy_of_alpha")
            + "\n\n" + checks("beta", 2))
    verdicts, fixed, _ = classify(build({"a.py": base}, {"a.py": head}, none_findings(base),
                                        none_findings(head)))
    assert [(v.finding.line, v.scope) for v in verdicts] == [
        (5, "preexisting"), (11, "introduced"), (17, "preexisting"), (19, "preexisting")]
    assert not fixed


def test_a_function_moved_next_to_one_alike_in_another_file_keeps_its_finding() -> None:
    """alpha moves into b.py right after epsilon, alike but for the name: the line map pairs
    epsilon's old line with alpha's; epsilon takes its own back and alpha's is the move's."""
    top = "compute = print\n\n\n"
    base = {"a.py": top + checks("alpha"), "b.py": top + checks("epsilon") + "\n\n" + checks("zeta", 2)}
    head = {"a.py": "compute = print\n",
            "b.py": top + checks("epsilon") + "\n\n" + checks("alpha") + "\n\n" + checks("zeta", 2)}
    inputs = build(base, head, [x for p in base for x in none_findings(base[p], p)],
                   [x for p in head for x in none_findings(head[p], p)])
    verdicts, fixed, _ = classify(inputs)
    assert [(v.finding.line, v.scope, v.base.path if v.base else None) for v in verdicts] == [
        (5, "preexisting", "b.py"), (11, "preexisting", "a.py"), (17, "preexisting", "b.py"),
        (19, "preexisting", "b.py")]
    assert not fixed


def test_a_function_moved_out_leaves_no_finding_of_the_others_to_it() -> None:
    """beta moves to b.py, alike to gamma; the diff of a.py deletes alpha's body with beta's
    head and keeps beta's body as alpha's: every line of a.py is unchanged or gone, and P1
    gives alpha's finding beta's. alpha takes its own back; beta's go with beta."""
    top = "compute = print\n\n\n"
    base = {"a.py": top + "\n\n".join([checks("alpha"), checks("beta", 2), checks("gamma", 2)]),
            "b.py": "compute = print\n"}
    head = {"a.py": top + "\n\n".join([checks("alpha"), checks("gamma", 2)]),
            "b.py": top + checks("beta", 2)}
    inputs = build(base, head, [x for p in base for x in none_findings(base[p], p)],
                   [x for p in head for x in none_findings(head[p], p)])
    verdicts, fixed, _ = classify(inputs)
    assert [(v.finding.path, v.finding.line, v.scope, v.base.line if v.base else None)
            for v in verdicts] == [
        ("a.py", 5, "preexisting", 5), ("a.py", 11, "preexisting", 19),
        ("a.py", 13, "preexisting", 21), ("b.py", 5, "preexisting", 11),
        ("b.py", 7, "preexisting", 13)]
    assert not fixed


def test_a_function_with_lines_added_and_moved_keeps_its_finding() -> None:
    """alpha gets two lines (more tokens than it had) and moves after a new function and a
    copy: the same name, held once on each side, still says it is alpha."""
    top = "compute = print\n\n\n"
    grown = checks("alpha").replace("(x):\n", '(x):\n    print("added", 0)\n    print("added", 1)\n')
    base = top + checks("alpha") + "\n\n" + checks("beta")
    head = top + "\n\n".join([checks("brand_new", 3), checks("the_copy"), grown,
                              checks("beta_renamed")])
    verdicts, fixed, _ = classify(build({"a.py": base}, {"a.py": head}, none_findings(base),
                                        none_findings(head)))
    alpha = next(v for v in verdicts if v.finding.line == 23)
    assert (alpha.scope, alpha.base.line if alpha.base else None) == ("preexisting", 5)
    assert [v.scope for v in verdicts].count("introduced") == 4 and not fixed


def test_a_reformatted_function_reordered_keeps_its_own_finding() -> None:
    """ruff format wraps alpha's call and puts it after beta; gamma, alike but for its name,
    moves to b.py. The tokens of the rewritten region aligned alpha's call with gamma's: alpha
    takes its own finding back, and gamma's goes with gamma."""
    unused = "Local variable `unused` is assigned to but never used"

    def fn(name: str) -> str:
        return f"def {name}(x):\n    unused = compute(0)\n    return 0\n"

    def wrapped(name: str) -> str:
        return f"def {name}(x):\n    unused = (\n        compute(0)\n    )\n    return 0\n"

    beta = "def beta(x):\n    return 0\n"
    top = "compute = print\n\n\n"
    base = {"a.py": top + fn("alpha") + "\n\n" + beta + "\n\n" + fn("gamma"), "b.py": top + beta}
    head = {"a.py": top + beta + "\n\n" + wrapped("alpha"), "b.py": top + wrapped("gamma") + "\n\n" + beta}
    inputs = build(base, head, [f("F841", 5, unused, col=5), f("F841", 14, unused, col=5)],
                   [f("F841", 9, unused, col=5), f("F841", 5, unused, path="b.py", col=5)])
    verdicts, fixed, _ = classify(inputs)
    assert [(v.finding.path, v.scope, v.base.line if v.base else None) for v in verdicts] == [
        ("a.py", "preexisting", 5), ("b.py", "preexisting", 14)]
    assert not fixed


def test_touched_when_the_change_edited_the_line() -> None:
    inputs = build({"a.py": "def f(x):\n    if x == None:\n"}, {"a.py": "def f(y):\n    if y == None:\n"},
                   [f("E711", 2, "m")], [f("E711", 2, "m")])
    (v,), _, _ = classify(inputs)
    assert v.touched and v.scope == "preexisting"
    inputs = build({"a.py": CALL}, {"a.py": "# top\n" + CALL}, [f("F841", 2, UNUSED)], [f("F841", 3, UNUSED)])
    (v,), _, _ = classify(inputs)
    assert not v.touched


def test_is_file_level() -> None:
    assert is_file_level(file_start("D100", "m"))
    assert is_file_level(f("x", 3, "m", file_level=True))
    assert not is_file_level(f("F401", 1, "m", col=8, end=(1, 10)))
    assert not is_file_level(f("E265", 1, "m", col=1, end=(1, 22)))  # a real finding at 1:1
    assert not is_file_level(f("W391", 2, "m", col=1, end=(2, 1)))  # empty, but not at the start


def test_fingerprint_of_a_file_level_finding_survives_lines_inserted_above() -> None:
    before = classify(build({"a.py": "x = 1\n"}, {"a.py": "x = 1\n"}, [], [file_start("D100", "m")]))
    after = classify(build({"a.py": "x = 1\n"}, {"a.py": "# c\nx = 1\n"}, [], [file_start("D100", "m")]))
    assert before[0][0].fingerprint == after[0][0].fingerprint


# --- no baseline ------------------------------------------------------------------------------

def test_unbaselined_path_is_never_guessed() -> None:
    base, head = CALL, "# new\nvalue_two = undefined\n" + CALL
    inputs = build({"a.py": base}, {"a.py": head},
                   [f("F841", 2, UNUSED), f("F821", 3, "gone")],
                   [f("F821", 2, "Undefined name `undefined`"), f("F841", 4, "other `v`")],
                   unbaselined=[("ruff", "a.py")])
    verdicts, fixed, notes = classify(inputs)
    scopes = {v.finding.line: (v.scope, v.where, v.reasons) for v in verdicts}
    # F841 at 4 is partnered through the map (the base run was fine for it), the added line is
    # introduced in the diff, but nothing leftover at the base is called fixed.
    assert scopes[2] == ("introduced", "diff", ("no-baseline",))
    assert scopes[4][0] == "changed"
    assert fixed == [] and len(notes) == 1 and "could not be compared" in notes[0]


def test_unbaselined_untouched_line_is_unclassified() -> None:
    inputs = build({"a.py": CALL}, {"a.py": CALL}, [], [f("F841", 2, UNUSED)],
                   unbaselined=[("ruff", "a.py")])
    (v,), _, _ = classify(inputs)
    assert (v.scope, v.where, v.reasons) == ("unclassified", None, ("no-baseline",))


def test_base_that_did_not_parse_gives_no_baseline() -> None:
    inputs = build({"a.py": "def f(:\n    pass\nimport os\n"},
                   {"a.py": "def f():\n    unused = 1\nimport os\n"},
                   [f("invalid-syntax", 1, "Expected a parameter")],
                   [f("F841", 2, "unused"), f("F401", 3, "`os`")])
    verdicts, fixed, _ = classify(inputs)
    assert rows(verdicts) == [("F401", "a.py", 3, "unclassified", None),
                              ("F841", "a.py", 2, "introduced", "diff")]
    assert rows(fixed) == [("invalid-syntax", "a.py", 1, "fixed", None)]


def test_head_that_does_not_parse_hides_nothing_as_fixed() -> None:
    inputs = build({"a.py": "import os\ndef f():\n    return 1\n"},
                   {"a.py": "import os\ndef f(:\n    return 1\n"},
                   [f("F401", 1, "`os`")], [f("invalid-syntax", 2, "Expected a parameter")])
    verdicts, fixed, notes = classify(inputs)
    assert rows(verdicts) == [("invalid-syntax", "a.py", 2, "introduced", "diff")]
    assert fixed == [] and "could not be compared" in notes[0]


# --- properties -------------------------------------------------------------------------------

def test_findings_that_differ_only_in_severity_are_classified_in_any_order() -> None:
    warning, error = f("F841", 2, UNUSED, severity=Severity.WARNING), f("F841", 2, UNUSED)
    one = build({"a.py": CALL}, {"a.py": CALL}, [warning], [warning, error])
    other = replace(one, head=[error, warning])
    assert classify(one) == classify(other)


LINE_POOL = ["x = 1\n", "value = compute_something()\n", "if x == None:\n", "    pass\n", "\n",
             "def f():\n", "    return None\n", "import os, sys\n", "result = other_call(a, b)\n"]


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[Inputs, Inputs]:
    """Random texts and findings, and the same inputs with both finding lists shuffled."""
    base_text = "".join(draw(st.lists(st.sampled_from(LINE_POOL), min_size=1, max_size=12)))
    head_text = "".join(draw(st.lists(st.sampled_from(LINE_POOL), min_size=1, max_size=12)))

    def findings(text: str) -> list[Finding]:
        n = len(lines(text))
        spec = st.tuples(st.sampled_from(["R1", "R2"]), st.integers(1, n),
                         st.sampled_from(["a", "b `x`", "b `y`", "c 1"]),
                         st.sampled_from(list(Severity)), st.booleans(), st.integers(1, 3))
        out = [file_start(rule, message) if at_start and col == 1 else
               f(rule, line, message, severity=severity, col=col)
               for rule, line, message, severity, at_start, col in draw(st.lists(spec, max_size=8))]
        return out * draw(st.sampled_from([1, 1, 2]))  # exact duplicates too

    base, head = findings(base_text), findings(head_text)
    inputs = build({"a.py": base_text}, {"a.py": head_text}, base, head)
    seed = draw(st.integers(0, 2**32))
    rng = random.Random(seed)
    shuffled_base, shuffled_head = list(base), list(head)
    rng.shuffle(shuffled_base)
    rng.shuffle(shuffled_head)
    return inputs, replace(inputs, base=shuffled_base, head=shuffled_head)


@settings(max_examples=200, deadline=None)
@given(scenarios())
def test_classification_is_deterministic_and_one_to_one(pair: tuple[Inputs, Inputs]) -> None:
    assert_deterministic_and_one_to_one(*pair)


MOVE_POOL = [*LINE_POOL, "alpha = compute_alpha(1)\n", "beta_value = fetch_beta(2)\n",
             "    return result_value\n", "gamma = alpha + beta_value\n"]


@st.composite
def moving_scenarios(draw: st.DrawFn) -> tuple[Inputs, Inputs]:
    """Three files whose head texts are made of blocks cut from any base file (moved, copied,
    edited on the way) and fresh lines; a.py may be deleted and d.py new. The shuffled twin
    lists findings and every file mapping in another order."""
    pool = st.sampled_from(MOVE_POOL)
    base_files = {name: "".join(draw(st.lists(pool, min_size=1, max_size=10)))
                  for name in ("a.py", "b.py", "c.py")}
    base_lines = {name: lines(text) for name, text in base_files.items()}

    @st.composite
    def piece(draw2: st.DrawFn) -> str:
        source = draw2(st.sampled_from(sorted(base_lines)))
        got = base_lines[source]
        start = draw2(st.integers(0, len(got) - 1))
        block = list(got[start:start + draw2(st.integers(1, 5))])
        if draw2(st.booleans()):  # edited on the way: slightly or replaced
            k = draw2(st.integers(0, len(block) - 1))
            block[k] = draw2(st.sampled_from([block[k].rstrip("\n") + " + 1\n"]) | pool)
        return "".join(block)

    heads = ["b.py", "c.py", *(["a.py"] if draw(st.booleans()) else []),
             *(["d.py"] if draw(st.booleans()) else [])]
    head_files = {name: "".join(draw(st.lists(piece() | pool, min_size=1, max_size=4)))
                  for name in heads}
    deleted = () if "a.py" in head_files else ("a.py",)

    def findings(files: Mapping[str, str]) -> list[Finding]:
        out: list[Finding] = []
        for path, text in files.items():
            spec = st.tuples(st.sampled_from(["R1", "R2"]), st.integers(1, len(lines(text))),
                             st.sampled_from(["a", "b `x`", "b `y`"]), st.integers(1, 2))
            out += [f(rule, line, message, path=path, col=col)
                    for rule, line, message, col in draw(st.lists(spec, max_size=4))]
        return out * draw(st.sampled_from([1, 1, 2]))  # exact duplicates too

    inputs = build(base_files, head_files, findings(base_files), findings(head_files),
                   deleted=deleted)
    rng = random.Random(draw(st.integers(0, 2**32)))

    def shuffled(items: Iterable[T]) -> list[T]:
        out = list(items)
        rng.shuffle(out)
        return out

    ev = inputs.evidence
    twin = replace(inputs, base=shuffled(inputs.base), head=shuffled(inputs.head),
                   evidence=replace(ev, pairs=dict(shuffled(ev.pairs.items())),
                                    maps=dict(shuffled(ev.maps.items())),
                                    base_files=dict(shuffled(ev.base_files.items())),
                                    head_files=dict(shuffled(ev.head_files.items()))))
    return inputs, twin


@settings(max_examples=200, deadline=None)
@given(moving_scenarios())
def test_moves_between_files_are_deterministic_and_one_to_one(pair: tuple[Inputs, Inputs]) -> None:
    assert_deterministic_and_one_to_one(*pair)


def assert_deterministic_and_one_to_one(inputs: Inputs, shuffled: Inputs) -> None:
    verdicts, fixed, notes = classify(inputs)
    assert classify(shuffled) == (verdicts, fixed, notes)
    # Every head finding gets exactly one verdict.
    assert Counter(v.finding for v in verdicts) == Counter(inputs.head)
    # Every base finding is either partnered exactly once or fixed, never both, never twice.
    partnered = Counter(v.base for v in verdicts if v.base is not None)
    assert partnered + Counter(v.finding for v in fixed) == Counter(inputs.base)
    for v in verdicts:
        assert (v.base is None) == (v.scope == "introduced")


# --- real ruff, real repositories ---------------------------------------------------------------

def test_real_ruff_reports_whole_file_rules_at_the_empty_range_1_1(repo: GitRepo) -> None:
    """The span is_file_level keys on is what ruff really reports for these rules."""
    require_tool("ruff")
    start(repo, {"pkg/mod.py": "import os\n"}, FILE_LEVEL_CONFIG)
    repo.commit({"pkg/mod.py": "import os\nimport sys\n"})
    spans = {v.finding.rule: v.finding.span for v in review(repo).findings}
    assert spans["CPY001"] == spans["D100"] == spans["INP001"] == Span(1, 1, 1, 1)
    assert spans["F401"] != Span(1, 1, 1, 1)


def test_real_ruff_shebang_added_keeps_file_level_findings(repo: GitRepo) -> None:
    require_tool("ruff")
    start(repo, {"pkg/mod.py": "import os\n"}, FILE_LEVEL_CONFIG)
    repo.commit({"pkg/mod.py": "#!/usr/bin/env python\nimport os\n"})
    # A shebang makes the module a script, which INP001 no longer asks to be in a package.
    assert table(review(repo)) == [
        ("CPY001", "pkg/mod.py", 1, "preexisting", None),
        ("D100", "pkg/mod.py", 1, "preexisting", None),
        ("F401", "pkg/mod.py", 2, "preexisting", None),
        ("INP001", "pkg/mod.py", 1, "fixed", None),
    ]


def test_real_ruff_docstring_deleted_is_introduced_in_the_diff(repo: GitRepo) -> None:
    require_tool("ruff")
    start(repo, {"pkg/mod.py": '"""Doc."""\n\nimport os\n'}, FILE_LEVEL_CONFIG)
    repo.commit({"pkg/mod.py": "import os\n"})
    assert table(review(repo), "D100") == [("D100", "pkg/mod.py", 1, "introduced", "diff")]


def test_real_ruff_file_level_findings_follow_a_renamed_file(repo: GitRepo) -> None:
    """INP001's message names the file: after a rename it still says the same thing."""
    require_tool("ruff")
    start(repo, {"pkg/old.py": "import os\n"}, FILE_LEVEL_CONFIG)
    repo.mv("pkg/old.py", "pkg/new.py")
    repo.commit()
    assert table(review(repo)) == [
        ("CPY001", "pkg/new.py", 1, "preexisting", None),
        ("D100", "pkg/new.py", 1, "preexisting", None),
        ("F401", "pkg/new.py", 1, "preexisting", None),
        ("INP001", "pkg/new.py", 1, "preexisting", None),
    ]
