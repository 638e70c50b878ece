"""Tokens as a formatter leaves them alone, and the definitions among them."""

from __future__ import annotations

from bot.verdicts.tokens import read
from tests.verdicts.test_classify import lines


def texts(path: str, source: str) -> list[str]:
    return [t.text for t in read(path, lines(source)).tokens]


def test_layout_quotes_trailing_commas_and_semicolons_do_not_count() -> None:
    assert texts("a.py", "x = f('a', b,)\n") == texts("a.py", 'x = f(\n    "a",\n    b\n)\n')
    assert texts("a.js", "let a = ['x', 1,];\n") == texts("a.js", 'let a = [\n  "x",\n  1\n]\n')
    assert texts("a.py", "x = 1  # a comment\n") == texts("a.py", "x = 1\n")


def test_a_changed_token_still_counts() -> None:
    assert texts("a.py", "x = f(a)\n") != texts("a.py", "x = f(b)\n")
    assert texts("a.go", "package a\nvar s = 1\n") != texts("a.go", "package a\nvar t = 1\n")


def test_columns_count_characters_not_bytes() -> None:
    tokens = read("a.py", lines("s = 'é'; name = 1\n")).tokens
    found = [(t.line, t.column) for t in tokens if t.text == "name"]
    assert found == [(1, 10)]  # byte 11


def test_a_file_without_a_grammar_is_lexed_plainly() -> None:
    assert texts("a.yml", "key: [1, 'two']\n") == ["key", ":", "[", "1", ",", "'two'", "]"]


def test_definitions_with_their_names_across_languages() -> None:
    cases = {
        "a.py": ("class A:\n    def f(self, x=[]):\n        return x\n", ["A", "f"]),
        "a.js": ("function k() {\n  return 1\n}\nconst h = (a) => {\n  return a\n}\n", ["k", None]),
        "a.go": ("package a\n\nfunc (s *S) M(x int) int {\n\treturn x\n}\n", ["M"]),
        "a.rs": ("impl S {\n    fn m(&self) -> i32 {\n        1\n    }\n}\n", [None, "m"]),
    }
    for path, (source, names) in cases.items():
        code = read(path, lines(source))
        assert [None if d.name is None else code.tokens[d.name].text for d in code.definitions] == names
    outer, inner = read("a.py", lines(cases["a.py"][0])).definitions
    assert outer.start < inner.start and inner.stop <= outer.stop


def test_a_one_line_definition_is_not_one() -> None:
    assert read("a.py", lines("def f(): return 1\n")).definitions == ()
