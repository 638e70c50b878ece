"""The pattern ladder: which reading a fragment gets, and loud errors."""

from __future__ import annotations

import pytest

from bot.errors import BotError, Exit
from bot.structural.lang import LANGS, get
from bot.structural.pattern import compile_pattern
from bot.structural.search import search_source


def texts(lang: str, pattern: str, source: str) -> list[str]:
    return [m.text for m in search_source(compile_pattern(get(lang), pattern), source.encode())]


def test_go_selector_call_is_a_call() -> None:
    p = compile_pattern(get("go"), "fmt.Println($A)")
    assert p.root_kinds == ("call_expression",)
    assert p.context == "statement"


def test_python_call_is_a_call() -> None:
    assert compile_pattern(get("python"), "dispose($X)").root_kinds == ("call",)
    assert texts("python", "dispose($X)", "def f():\n    dispose(a)\n") == ["dispose(a)"]


@pytest.mark.parametrize(("lang", "pattern", "context"), [
    ("python", "return $X", "top level"),
    ("python", "except $E:\n    pass", "except clause"),
    ("python", "key=$V", "top level"),  # an assignment: the first reading wins
    ("python", "**$KW", "argument"),
    ("javascript", "$F = $I", "top level"),
    ("javascript", "get $P() { return $V }", "class member"),
    ("typescript", "$K?: $T", "class member"),
    ("go", "func $F() {}", "top level"),
    ("go", "case $X:", "switch case"),
    ("rust", "|$A, $B|", "closure parameters"),
    ("rust", "pub $F: $T", "struct field"),
])
def test_ladder_contexts(lang: str, pattern: str, context: str) -> None:
    assert compile_pattern(get(lang), pattern).context == context


@pytest.mark.parametrize(("lang", "pattern"), [
    ("typescript", "x +"), ("python", "def f(:"), ("go", "func ("), ("rust", "let = ;"),
    ("javascript", "foo(,"),
])
def test_unparseable_pattern_is_an_error(lang: str, pattern: str) -> None:
    with pytest.raises(BotError) as err:
        compile_pattern(get(lang), pattern)
    assert err.value.code == 2
    assert "not valid" in err.value.message and "contexts tried" in err.value.message


def test_only_multi_metavariable_is_an_error() -> None:
    with pytest.raises(BotError, match=r"\$\$\$"):
        compile_pattern(get("python"), "$$$A")


def test_empty_pattern_and_bad_strictness() -> None:
    with pytest.raises(BotError, match="empty"):
        compile_pattern(get("python"), "  \n ")
    with pytest.raises(BotError, match="strictness"):
        compile_pattern(get("python"), "a", strictness="loose")


def test_unknown_language() -> None:
    with pytest.raises(BotError, match="unknown language"):
        get("cobol-ish")
    assert get("ts").name == "typescript" and get("golang").name == "go"


def test_selector_missing_is_an_error() -> None:
    with pytest.raises(BotError):
        compile_pattern(get("javascript"), "", context="foo($A)", selector="class_body")


@pytest.mark.parametrize(("lang", "pattern"), [
    ("python", "$X = 1\nb = $Y"),
    ("javascript", "foo()\nbar($A)"),
    ("javascript", "foo(); bar($A);"),
    ("go", "$A := 1\n$B := $A"),
    ("rust", "let $A = 1;\nlet $B = $A;"),
])
def test_several_root_nodes_are_an_error(lang: str, pattern: str) -> None:
    """ast-grep refuses a pattern of two statements ("Multiple AST nodes are detected");
    so do we, saying so, instead of searching for something that cannot match."""
    with pytest.raises(BotError, match=r"2 nodes side by side.*one root node") as err:
        compile_pattern(get(lang), pattern)
    assert err.value.code == Exit.USAGE


def test_a_context_of_several_nodes_is_fine_with_a_selector() -> None:
    p = compile_pattern(get("javascript"), "", context="a = 1;\nfoo($A);", selector="call_expression")
    got = [m.text for m in search_source(p, b"foo(1); bar(2);")]
    assert got == ["foo(1)"]


def test_literal_dollar_words_stay_literal() -> None:
    """Lowercase `$x` and `$` are code in JS, not metavariables."""
    assert texts("javascript", "$(sel)", "$(sel); jQuery(sel)") == ["$(sel)"]
    assert texts("javascript", "$foo.bar", "$foo.bar; x.bar") == ["$foo.bar"]


def test_metavariable_in_strings() -> None:
    """A string whose whole content is `$A` matches any one-piece string (as in ast-grep);
    a metavariable inside longer text is literal."""
    src = 'print("$A")\nprint("x")\nprint("Hello $W")\nprint("Hello w")\n'
    assert texts("python", 'print("$A")', src) == ['print("$A")', 'print("x")',
                                                    'print("Hello $W")', 'print("Hello w")']
    assert texts("python", 'print("Hello $W")', src) == ['print("Hello $W")']


@pytest.mark.parametrize("name", sorted(LANGS))
def test_every_language_compiles_and_matches_an_identifier_call(name: str) -> None:
    samples = {
        "python": "f(1)\n", "javascript": "f(1);\n", "typescript": "f(1);\n", "tsx": "f(1);\n",
        "go": "package p\nfunc g() { f(1) }\n", "rust": "fn g() { f(1); }\n",
        "c": "void g() { f(1); }\n", "cpp": "void g() { f(1); }\n",
        "java": "class A { void g() { f(1); } }\n", "csharp": "class A { void G() { f(1); } }\n",
        "kotlin": "fun g() { f(1) }\n", "ruby": "f(1)\n", "lua": "f(1)\n", "bash": "f 1\n",
    }
    pattern = "f $A" if name == "bash" else "f($A)"
    assert texts(name, pattern, samples[name]) == [samples[name].split("{ ")[-1].split(";")[0]
                                                   .split(" }")[0].strip()]
