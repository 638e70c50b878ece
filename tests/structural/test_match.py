"""Matching semantics: metavariables, equality of repeated ones, layout, strings and comments."""

from __future__ import annotations

from bot.structural.lang import get
from bot.structural.pattern import compile_pattern
from bot.structural.search import Match, search_source


def find(lang: str, pattern: str, source: str, **kw: str) -> list[Match]:
    return search_source(compile_pattern(get(lang), pattern, **kw), source.encode())


def texts(lang: str, pattern: str, source: str) -> list[str]:
    return [m.text for m in find(lang, pattern, source)]


def test_repeated_metavariable_binds_the_same_code() -> None:
    src = "if (a.b != null) a.b.dispose()\nif (a != null) b.dispose()\n"
    assert texts("javascript", "if ($X != null) $X.dispose()", src) == [
        "if (a.b != null) a.b.dispose()"]


def test_repeated_metavariable_ignores_layout_and_comments() -> None:
    src = "if (a.b != null) a /* c */ .\n  b.dispose()"
    assert len(texts("javascript", "if ($X != null) $X.dispose()", src)) == 1


def test_anonymous_metavariables_never_unify() -> None:
    assert texts("python", "$_ + $_", "a + b\n") == ["a + b"]
    assert texts("python", "$A + $A", "a + b\na + a\n") == ["a + a"]
    assert texts("python", "f($$$, $$$)", "f(1, 2)\n") == ["f(1, 2)"]


def test_multi_metavariable_zero_or_more_lazy() -> None:
    src = "f()\nf(1)\nf(1, 2, 3)\n"
    ms = find("python", "f($$$A)", src)
    assert [m.captures["A"].text for m in ms] == ["", "1", "1, 2, 3"]
    assert ms[2].captures["A"].items == ("1", ",", "2", ",", "3")
    ms = find("python", "f($$$A, 3)", src)
    assert [m.captures["A"].text for m in ms] == ["1, 2"]


def test_repeated_multi_metavariable_compares_nodes() -> None:
    src = "f(a, b) + g(a,b)\nf(a, b) + g(a, c)\n"
    assert texts("python", "f($$$A) + g($$$A)", src) == ["f(a, b) + g(a,b)"]


def test_single_metavariable_matches_named_nodes_only() -> None:
    assert texts("python", "f($A)", "f(x)\nf()\n") == ["f(x)"]


def test_matches_across_line_breaks_and_comments() -> None:
    src = "print(  # why\n    x,\n    # more\n)\n"
    ms = find("python", "print($A)", src)
    assert [m.captures["A"].text for m in ms] == ["x"]
    assert ms[0].span.line == 1 and ms[0].span.end_line == 4


def test_never_inside_strings_or_comments() -> None:
    src = '# print(x)\ns = "print(x)"\nt = """\nprint(x)\n"""\nprint(y)\n'
    assert texts("python", "print($A)", src) == ["print(y)"]
    js = "// foo(1)\n/* foo(2) */\nconst s = `foo(3)`; foo(4)\n"
    assert texts("javascript", "foo($A)", js) == ["foo(4)"]


def test_nested_matches_reported_in_pre_order() -> None:
    assert texts("python", "f($A)", "f(f(f(1)))\n") == ["f(f(f(1)))", "f(f(1))", "f(1)"]


def test_unicode_columns_are_code_points() -> None:
    ms = find("python", "g($A)", "x = 'é€😀'; g(1)\n")
    assert ms[0].span.column == 12 and ms[0].span.end_column == 16


def test_trailing_named_nodes_must_match() -> None:
    """Deliberate difference: ast-grep ignores what follows a node's last pattern element."""
    src = "assert a == b\nassert a == b, 'msg'\n"
    assert texts("python", "assert $A == $B", src) == ["assert a == b"]
    assert texts("python", "assert $A == $B, $M", src) == ["assert a == b, 'msg'"]
    ms = find("python", "lambda $$$A: $B", "f = lambda x: x + 1\n")
    assert [(m.captures["A"].text, m.captures["B"].text) for m in ms] == [("x", "x + 1")]


def test_ellipsis_takes_a_longer_split_when_the_rest_fails() -> None:
    """ast-grep stops at the first `$V` candidate and misses this (its issue #1259)."""
    ms = find("typescript", "f($$$B, $V, 3)", "f(1, 2, 3)")
    assert [(m.captures["B"].text, m.captures["V"].text) for m in ms] == [("1", "2")]


def test_modifier_tokens_are_not_skipped_for_structure() -> None:
    src = "f(async (x) => 1); g((x) => 2)"
    assert texts("javascript", "($P) => $B", src) == ["(x) => 2"]


def test_strictness_cst_requires_everything() -> None:
    assert texts("javascript", "foo($A, $B)", "foo(a, b,)") == ["foo(a, b,)"]
    assert find("javascript", "foo($A, $B)", "foo(a, b,)", strictness="cst") == []
    assert len(find("javascript", "foo($A,)", "foo(1)", strictness="ast")) == 1


def test_go_and_rust_bindings() -> None:
    go = "package p\nfunc f() error {\n\tif tw.err != nil {\n\t\treturn tw.err\n\t}\n\treturn nil\n}\n"
    ms = find("go", "if $E != nil { return $E }", go)
    assert [m.captures["E"].text for m in ms] == ["tw.err"]
    rs = "fn f() { let x = a.unwrap(); let y = b.c().unwrap(); }"
    assert [m.captures["A"].text for m in find("rust", "$A.unwrap()", rs)] == ["a", "b.c()"]
