"""The rules engine: each key's semantics, compile errors, and the CLI's --rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.errors import BotError
from bot.structural.lang import get
from bot.structural.rulefix import rewrite_rule, to_case
from bot.structural.rulematch import search_rule
from bot.structural.rules import compile_config

PY = """\
import os

def load(path):
    with open(path) as fh:
        return fh.read()

def helper():
    print("debug")
    value = open("x")
    return value

class Box:
    def close(self):
        print("closing")
"""


def found(rule: dict[str, Any], source: str = PY, lang: str = "python", **doc: Any) -> list[str]:
    config = compile_config({"rule": rule, **doc}, get(lang))
    data = source.encode()
    return [data[r.start:r.end].decode() for r in search_rule(config, data)]


def test_inside_has_and_their_stop_by() -> None:
    # Directly inside a `with` only at stopBy end: the call sits in with_item/with_clause.
    assert found({"pattern": "open($P)", "inside": {"kind": "with_statement"}}) == []
    assert found({"pattern": "open($P)", "inside": {"kind": "with_statement", "stopBy": "end"}}) == [
        "open(path)"]
    assert found({"kind": "function_definition", "has": {"pattern": "print($$$)", "stopBy": "end"}}) == [
        'def helper():\n    print("debug")\n    value = open("x")\n    return value',
        'def close(self):\n        print("closing")']
    # stopBy a rule: looking up from print() stops at the first function, never reaching the class.
    assert found({"pattern": "print($$$)", "inside": {
        "kind": "class_definition", "stopBy": {"kind": "function_definition"}}}) == []


def test_field_not_any_and_utils() -> None:
    assert found({"kind": "identifier", "inside": {"kind": "function_definition", "field": "name"}}) \
        == ["load", "helper", "close"]
    assert found({"kind": "identifier", "inside": {"kind": "function_definition", "field": "parameters",
                                                   "stopBy": "end"}}) == ["path", "self"]
    assert found({"kind": "function_definition", "has": {"field": "name", "regex": "^(load|close)$"}}) == [
        "def load(path):\n    with open(path) as fh:\n        return fh.read()",
        'def close(self):\n        print("closing")']
    assert found({"pattern": "open($P)", "not": {"inside": {"kind": "with_statement", "stopBy": "end"}}}) \
        == ['open("x")']
    assert found({"any": [{"pattern": "print($A)"}, {"pattern": "fh.read()"}]}) == [
        "fh.read()", 'print("debug")', 'print("closing")']
    assert found({"matches": "is-print"}, utils={"is-print": {"pattern": "print($$$)"}}) == [
        'print("debug")', 'print("closing")']


def test_precedes_follows_and_metavariables_across_keys() -> None:
    src = "a = 1\nb = a\nc = 2\n"
    assert found({"pattern": "$X = $V", "precedes": {"pattern": "$Y = $X"}}, src) == ["a = 1"]
    assert found({"pattern": "$Y = $X", "follows": {"pattern": "$X = $V"}}, src) == ["b = a"]
    assert found({"pattern": "c = 2", "follows": {"pattern": "a = 1"}}, src) == []
    assert found({"pattern": "c = 2", "follows": {"pattern": "a = 1", "stopBy": "end"}}, src) == ["c = 2"]


def test_constraints_and_transforms_in_a_fix() -> None:
    doc = {"rule": {"pattern": "$F($$$ARGS)"}, "constraints": {"F": {"regex": "^print$"}},
           "transform": {"G": {"replace": {"source": "$F", "replace": "^p(r)", "by": "l${1}"}},
                         "U": {"convert": {"source": "$F", "toCase": "upperCase"}},
                         "S": {"substring": {"source": "$F", "startChar": 1, "endChar": 3}}},
           "fix": "$G($$$ARGS)  # $U $S"}
    out = rewrite_rule(compile_config(doc, get("python")), b'print("x")\nlen(y)\n')
    assert out.new_source == b'lrint("x")  # PRINT ri\nlen(y)\n'


def test_cases() -> None:
    assert [to_case("fooBar_baz-Qux", c) for c in ("snakeCase", "kebabCase", "camelCase", "pascalCase")] \
        == ["foo_bar_baz_qux", "foo-bar-baz-qux", "fooBarBazQux", "FooBarBazQux"]


@pytest.mark.parametrize(("doc", "says"), [
    ({"rule": {"patern": "x"}}, "rule: unknown key `patern`; did you mean `pattern`?"),
    ({"rule": {"pattern": "def f(:"}}, "rule.pattern: pattern"),
    ({"rule": {"has": {"regex": "("}}}, "rule.has.regex: not a regular expression"),
    ({"rule": {"all": []}}, "rule.all: expected a non-empty list"),
    ({"rule": {"kind": "call"}, "fix": "$X"}, "rewrite uses $X"),
    ({"rule": {"kind": "call"}, "transform": {"A": {"convert": {"source": "$B", "toCase": "up"}}}},
     "transform.A.convert.toCase"),
    ({"rule": {"kind": "call"}, "extra": 1}, "document: unknown key `extra`"),
    ({"rule": {"kind": "call"}, "sevrity": "error"}, "did you mean `severity`?"),
    ({"rule": {"kind": "call", "inside": {"kind": "module", "stopby": "end"}}},
     "rule.inside: unknown key `stopby`; did you mean `stopBy`?"),
    ({"rule": {"pattern": {"context": "f($A)", "selectr": "call"}}},
     "rule.pattern: unknown key `selectr`; did you mean `selector`?"),
    ({"rule": {"pattern": {"selector": "call"}}}, "rule.pattern: a pattern object needs a `context`"),
    ({"rule": {"pattern": {"context": "f($A)", "strictness": "loose"}}},
     "rule.pattern: unknown strictness 'loose'; use one of cst, smart, ast, relaxed, signature, template"),
    ({"rule": {"pattern": "a = 1\nb = 2"}}, r"rule.pattern: pattern 'a = 1\nb = 2' is 2 nodes side by side"),
    ({"rule": {"kind": "calll"}}, "rule.kind: 'calll' is not a node kind of python"),
    ({"rule": {"kind": "call"}, "utils": ["x"]}, "utils: expected a mapping"),
    ({"rule": {"kind": "call"}, "constraints": "x"}, "constraints: expected a mapping"),
    ({"rule": {"kind": "call"}, "transform": [1]}, "transform: expected a mapping"),
    ({"rule": {"kind": "call"}, "transform": {"B": "replace($A, replace='a', by='b')"}},
     "transform.B: the string form of a transform is not supported"),
    ({"rule": {"kind": "call"}, "transform": {"B": {"substring": {"source": "$A", "startChar": "1"}}}},
     "transform.B.substring.startChar: expected an integer"),
    ({"rule": {"kind": "call"}, "transform": {"B": {"replace": {"source": "$A", "replace": "a",
                                                                "with": "b"}}}},
     "transform.B.replace: unknown key `with`"),
    ({"rule": {"kind": "call"}, "fix": {"template": "x", "expandstart": {"kind": "call"}}},
     "fix: unknown key `expandstart`; did you mean `expandStart`?"),
    ({"rule": {"kind": "call"}, "fix": ["a", "b"]}, "fix: a list of fixes is not supported"),
])
def test_compile_errors_name_the_key(doc: dict[str, Any], says: str) -> None:
    with pytest.raises(BotError) as info:
        compile_config(doc, get("python"))
    assert says in info.value.message and info.value.code == 2


# Every key of ast-grep's rule format (its JSON schema) that we lack, where it goes.
LACKING = [
    ({"rule": {"kind": "call"}, "rewriters": []}, "rewriters"),
    ({"rule": {"kind": "call"}, "labels": {}}, "labels"),
    ({"rule": {"kind": "call"}, "files": ["*.py"]}, "files"),
    ({"rule": {"kind": "call"}, "ignores": ["t/*"]}, "ignores"),
    ({"rule": {"kind": "call"}, "metadata": {"a": 1}}, "metadata"),
    ({"rule": {"kind": "call", "nthChild": 1}}, "rule.nthChild"),
    ({"rule": {"kind": "call", "range": {"start": {"line": 0, "column": 0}}}}, "rule.range"),
    ({"rule": {"kind": "call", "has": {"kind": "identifier", "nthChild": 1}}}, "rule.has.nthChild"),
    ({"rule": {"any": [{"kind": "call"}, {"range": {}}]}}, "rule.any[1].range"),
    ({"rule": {"kind": "call"}, "constraints": {"A": {"nthChild": 2}}}, "constraints.A.nthChild"),
    ({"rule": {"kind": "call"}, "utils": {"u": {"range": {}}}}, "utils.u.range"),
    ({"rule": {"kind": "call"}, "fix": {"template": "x", "title": "t"}}, "fix.title"),
    ({"rule": {"kind": "call"}, "transform": {"B": {"rewrite": {"source": "$A", "rewriters": []}}}},
     "transform.B.rewrite"),
    ({"rule": {"kind": "call"}, "transform": {"B": {"convert": {"source": "$A", "toCase": "snakeCase",
                                                                "separatedBy": ["dash"]}}}},
     "transform.B.convert.separatedBy"),
]


@pytest.mark.parametrize(("doc", "key"), LACKING, ids=[k for _, k in LACKING])
def test_every_ast_grep_key_we_lack_is_refused_by_name(doc: dict[str, Any], key: str) -> None:
    with pytest.raises(BotError) as info:
        compile_config(doc, get("python"))
    name = key.rsplit(".", 1)[-1]
    assert info.value.message.startswith(f"{key}: ast-grep's `{name}` is not supported by reviewbot")
    assert info.value.code == 2


def test_cli_refuses_a_lacking_key_without_a_traceback(repo: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "a.py").write_text("f(1)\n")
    (repo / "rule.yml").write_text("id: r\nlanguage: python\nrule:\n  kind: call\n  nthChild: 1\n")
    assert main(["ast-grep", "--rule", "rule.yml"]) == 2
    err = capsys.readouterr().err
    assert "rule.yml: rule.nthChild: ast-grep's `nthChild` is not supported" in err
    assert "Traceback" not in err


def test_a_pattern_object_takes_every_strictness() -> None:
    src = "f(a, b)\nf(x, y)\ng(a, b)\n"
    rule = {"pattern": {"context": "f(a, b)", "strictness": "signature"}}
    assert found(rule, src) == ["f(a, b)", "f(x, y)", "g(a, b)"]
    rule = {"pattern": {"context": "f(a, b)", "strictness": "template"}}
    assert found(rule, src) == ["f(a, b)"]


RULE = """\
id: no-print
language: python
rule:
  pattern: print($$$A)
  inside: {kind: function_definition, stopBy: end}
fix: log($$$A)
"""


def test_cli_rule_search_and_staged_fix(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "a.py").write_text(PY + 'print("top level")\n')
    (repo / "rule.yml").write_text(RULE)
    assert main(["ast-grep", "--rule", "rule.yml", "--json"]) == 0
    assert [m["text"] for m in json.loads(capsys.readouterr().out)] == [
        'print("debug")', 'print("closing")']
    assert main(["ast-edit", "--rule", "rule.yml", "--stage", "plan.json"]) == 0
    staged = capsys.readouterr().out
    assert "2 edit(s) in 1 file(s)" in staged and '-    print("debug")' in staged
    assert main(["ast-edit", "--apply", "plan.json"]) == 0
    text = (repo / "a.py").read_text()
    assert 'log("debug")' in text and 'log("closing")' in text and 'print("top level")' in text


def test_cli_rule_errors(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / "bad.yml").write_text("rule: [unclosed\n")
    assert main(["ast-grep", "--rule", "bad.yml"]) == 2
    assert "not valid YAML" in capsys.readouterr().err
    (repo / "rule.yml").write_text(RULE)
    assert main(["ast-grep", "--rule", "rule.yml", "--lang", "go"]) == 2
    assert main(["ast-grep", "--rule", "missing.yml"]) == 2
    assert "cannot read rule file" in capsys.readouterr().err
    assert main(["ast-edit", "--rule", "rule.yml", "--rewrite", "x", "--stage", "p.json"]) == 2
