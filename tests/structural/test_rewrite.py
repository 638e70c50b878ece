"""Rewrites: substitution, indentation (tabs too), line endings, deletion, overlaps, re-parse."""

from __future__ import annotations

import pytest

from bot.errors import BotError
from bot.structural.lang import get
from bot.structural.pattern import compile_pattern
from bot.structural.rewrite import FileRewrite, compile_template, rewrite_source


def rewrite(lang: str, pattern: str, template: str, source: str | bytes) -> FileRewrite:
    p = compile_pattern(get(lang), pattern)
    data = source.encode() if isinstance(source, str) else source
    return rewrite_source(p, compile_template(template, p), data)


def out(lang: str, pattern: str, template: str, source: str | bytes) -> str:
    result = rewrite(lang, pattern, template, source)
    assert result.error == ""
    return result.new_source.decode()


def test_tab_indented_python() -> None:
    src = "class A:\n\tdef f(self):\n\t\tc = lambda: 456\n"
    assert out("python", "$B = lambda: $R", "def $B():\n    return $R", src) == (
        "class A:\n\tdef f(self):\n\t\tdef c():\n\t\t    return 456\n")


def test_tab_indented_go() -> None:
    src = "package p\n\nfunc f() error {\n\tfor {\n\t\tif err != nil {\n\t\t\treturn err\n\t\t}\n\t}\n}\n"
    new = out("go", "if $E != nil { return $E }",
              'if $E != nil {\n\treturn fmt.Errorf("f: %w", $E)\n}', src)
    assert new == ("package p\n\nfunc f() error {\n\tfor {\n\t\tif err != nil {\n"
                   '\t\t\treturn fmt.Errorf("f: %w", err)\n\t\t}\n\t}\n}\n')


def test_crlf_file_keeps_crlf() -> None:
    src = b"if True:\r\n    c = lambda: 456\r\nx = 1\r\n"
    new = rewrite("python", "$B = lambda: $R", "def $B():\n    return $R", src).new_source
    assert new == b"if True:\r\n    def c():\r\n        return 456\r\nx = 1\r\n"
    assert b"\n" not in new.replace(b"\r\n", b"")


def test_multiline_capture_keeps_its_relative_indentation() -> None:
    src = "def f():\n    x = g(\n        1,\n        2,\n    )\n"
    assert out("python", "$A = g($$$ARGS)", "$A = h(\n    $$$ARGS\n)", src) == (
        "def f():\n    x = h(\n        1,\n        2,\n    )\n")


def test_lines_inside_strings_are_left_alone() -> None:
    src = 'def f():\n    x = wrap("""\nkeep\n  this\n""")\n'
    assert out("python", "$A = wrap($B)", "$A = [\n    $B,\n]", src) == (
        'def f():\n    x = [\n        """\nkeep\n  this\n""",\n    ]\n')


def test_empty_replacement_of_whole_lines_removes_them() -> None:
    src = "a()\n    console.log(1)\nb()\n"
    assert out("javascript", "console.log($$$)", "", src) == "a()\nb()\n"
    crlf = "a()\r\nconsole.log(1)\r\nb()\r\n"
    assert out("javascript", "console.log($$$)", "", crlf) == "a()\r\nb()\r\n"
    inline = "a(); console.log(1); b()\n"
    assert out("javascript", "console.log($$$)", "", inline) == "a(); ; b()\n"


def test_overlapping_matches_outer_wins() -> None:
    result = rewrite("python", "f($A)", "g($A)", "f(f(1))\nf(2)\n")
    assert result.new_source == b"g(f(1))\ng(2)\n"
    assert result.skipped == 1


def test_multi_keeps_original_separators() -> None:
    src = "foo(a,\n    b ,c)\n"
    assert out("python", "foo($$$A)", "bar($$$A)", src) == "bar(a,\n    b ,c)\n"


def test_unknown_metavariable_is_an_error_at_staging() -> None:
    p = compile_pattern(get("python"), "f($A)")
    with pytest.raises(BotError, match=r"\$B, which the pattern does not bind"):
        compile_template("g($B)", p)
    with pytest.raises(BotError, match="anonymous"):
        compile_template("g($_)", p)
    assert compile_template("g($a, $)", p).parts == ("g($a, $)",)  # not metavariables


def test_rewrite_that_breaks_the_file_is_refused() -> None:
    result = rewrite("python", "f($A)", "f($A", "f(1)\n")
    assert "does not parse" in result.error


def test_file_that_already_had_errors_is_judged_by_new_errors() -> None:
    src = "f(1)\ndef (:\n"
    assert rewrite("python", "f($A)", "g($A)", src).error == ""


def test_identity_rewrite_is_a_no_op() -> None:
    src = "class A:\n    t = [\n        1,\n    ]\n"
    assert out("python", "$X = $Y", "$X = $Y", src) == src
