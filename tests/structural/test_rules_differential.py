"""Rules against ast-grep-py on real code (the running Python's standard library): both
engines find the same nodes for every rule shape here. The deliberate differences (statement
patterns in sibling relations; comments are not neighbours) are tests 11 and 12 of
test_deliberate.py."""

from __future__ import annotations

import sysconfig
from pathlib import Path
from typing import Any

import pytest

from bot.structural.lang import get
from bot.structural.rulematch import search_rule
from bot.structural.rules import compile_config

ag = pytest.importorskip("ast_grep_py")

RULES: list[dict[str, Any]] = [
    {"pattern": "print($A)", "inside": {"kind": "function_definition", "stopBy": "end"}},
    {"kind": "call", "has": {"field": "function", "regex": "^open$"}},
    {"kind": "function_definition", "has": {"kind": "return_statement", "stopBy": "end"},
     "not": {"has": {"kind": "yield", "stopBy": "end"}}},
    {"pattern": "self.$X = $Y", "inside": {
        "kind": "function_definition", "has": {"field": "name", "regex": "^__init__$"},
        "stopBy": "end"}},
    {"any": [{"pattern": "isinstance($A, $B)"}, {"pattern": "hasattr($A, $B)"}]},
    {"kind": "dotted_name", "regex": "^_", "inside": {"kind": "import_from_statement"}},
    {"pattern": "return $X", "follows": {"kind": "if_statement", "stopBy": "end"}},
    {"kind": "if_statement", "precedes": {"pattern": "return $X", "stopBy": "end"},
     "inside": {"kind": "block"}},
    {"kind": "string", "inside": {"kind": "call", "stopBy": "end"},
     "not": {"inside": {"kind": "function_definition", "stopBy": "end"}}},
]


def _files() -> list[Path]:
    return sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))[:80]


@pytest.mark.parametrize("rule", RULES, ids=[str(i) for i in range(len(RULES))])
def test_rules_agree_with_ast_grep(rule: dict[str, Any]) -> None:
    config = compile_config({"rule": rule}, get("python"))
    compared = 0
    for path in _files():
        data = path.read_bytes()
        try:
            text = data.decode()
        except UnicodeDecodeError:
            continue
        ours = sorted((len(data[:r.start].decode()), len(data[:r.end].decode()))
                      for r in search_rule(config, data))
        theirs = sorted((n.range().start.index, n.range().end.index)
                        for n in ag.SgRoot(text, "python").root().find_all(**rule))
        assert ours == theirs, path.name
        compared += len(ours)
    assert compared > 0, "the rule matched nothing: the comparison proved nothing"
