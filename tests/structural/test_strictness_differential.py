"""Differential property test of every strictness level: our matches against ast-grep-py's
(`pattern: {context, strictness}`) on generated code that varies exactly what the levels
treat differently: keywords (`let`/`const`, `async`), quotes, trailing commas and semicolons,
argument text, and comments.

Matches are compared as text and range. Ours runs with `skip_trailing` (ast-grep's rule for
nodes after a pattern's last element, deliberate difference 4 in test_deliberate.py). Without
comments the results must be equal. With comments they must be equal under `cst` and `ast`
(which do not skip comments); under the levels that skip them we skip every comment and
ast-grep only some (deliberate difference 7), so ours may hold more matches, each containing
a comment.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.structural.lang import get
from bot.structural.pattern import STRICTNESS, compile_pattern
from bot.structural.search import search_source

ag = pytest.importorskip("ast_grep_py")

C = "/* c */"  # a comment, or nothing, where the generators put `{c}`

PATTERNS = {
    "typescript": ["foo($A)", "foo($$$A)", "foo(a, b)", "foo(a,)", "$F($A, $B)", "let $A = $B",
                   "const $A = 1", "$A = $B", "function $F($$$P) { $$$B }",
                   "async function $F() { $$$B }", "import $A from 'lib'", "if ($C) { $$$B }",
                   "x + 1", "$O.b($$$X)", "return $A", "{ foo(a); bar(b) }"],
    "python": ["f($A)", "f($$$A)", "f(a, b)", "f(a,)", "$A = $B", "x = [1, 2]",
               "def $F($$$P): $$$B", "async def $F(): $$$B", "return $A", "$A.append($B)",
               "import $M", "x + 1", "[$$$A]"],
    "rust": ["let $A = $B;", "let mut $A = 1;", "foo($$$A)", "foo(a, b)", "$A.unwrap()",
             "fn $F() { $$$B }", "x + 1", "return $A;"],
}


def _pick(draw: st.DrawFn, *options: str) -> str:
    return draw(st.sampled_from(options))


@st.composite
def _comment(draw: st.DrawFn, text: str = C) -> str:
    return draw(st.sampled_from(["", "", text]))


@st.composite
def _ts_statement(draw: st.DrawFn) -> str:
    c = _comment()
    callee = _pick(draw, "foo", "bar", "a.b", "o.b")
    args = draw(st.lists(st.sampled_from(["a", "b", "1", "'s'", "x + 1", "x - 1"]), max_size=3))
    trail = "," if args and draw(st.booleans()) else ""
    semi = _pick(draw, "", ";")
    name = _pick(draw, "a", "x", "y")
    q = _pick(draw, "'", '"')
    kind = draw(st.integers(0, 6))
    if kind == 0:
        return f"{callee}({draw(c)}{', '.join(args)}{trail}{draw(c)}){semi}"
    if kind == 1:
        return f"{_pick(draw, 'let', 'const', 'var')} {name} = {_pick(draw, '1', 'b', 'x + 1')}{semi}"
    if kind == 2:
        body = draw(st.lists(_ts_statement(), max_size=2))
        return (f"{_pick(draw, '', 'async ')}function {name}({_pick(draw, '', 'p', 'p, q')}) "
                f"{{ {draw(c)}{' '.join(body)} }}")
    if kind == 3:
        return f"import {_pick(draw, 'A', 'B')} from {q}{_pick(draw, 'lib', 'other')}{q}{semi}"
    if kind == 4:
        body = draw(st.lists(_ts_statement(), min_size=1, max_size=2))
        return f"if ({_pick(draw, 'x', 'a')}) {{ {' '.join(body)} }}"
    if kind == 5:
        return f"{name} = {_pick(draw, '1', 'b', 'x + 1')}{semi}"
    return f"{{ {' '.join(draw(st.lists(_ts_statement(), max_size=3)))} }}"


@st.composite
def _py_statement(draw: st.DrawFn, depth: int = 0) -> str:
    c = draw(_comment("# c\n"))
    callee = _pick(draw, "f", "g", "a.append", "o.f")
    args = draw(st.lists(st.sampled_from(["a", "b", "1", "'s'", "x + 1"]), max_size=3))
    trail = "," if args and draw(st.booleans()) else ""
    kind = draw(st.integers(0, 5 if depth < 2 else 4))
    if kind == 0:
        return f"{callee}({c}{', '.join(args)}{trail})"
    if kind == 1:
        return f"{_pick(draw, 'x', 'y')} = {_pick(draw, '1', '[1, 2]', '[1, 2,]', '[3, 4]', 'x + 1')}"
    if kind == 2:
        return f"return {_pick(draw, 'a', '1', 'x + 1')}"
    if kind == 3:
        return f"import {_pick(draw, 'os', 'sys')}"
    if kind == 4:
        return f"{_pick(draw, 'x + 1', 'x - 1', 'x  +  1')}"
    body = draw(st.lists(_py_statement(depth + 1), min_size=1, max_size=2))
    inner = "".join(f"\n    {line}" for s in body for line in s.split("\n"))
    head = f"{_pick(draw, '', 'async ')}def {_pick(draw, 'f', 'g')}({_pick(draw, '', 'p', 'p, q')}):"
    return head + draw(_comment("  # c")) + inner


@st.composite
def _rs_statement(draw: st.DrawFn) -> str:
    c = _comment()
    kind = draw(st.integers(0, 4))
    if kind == 0:
        args = draw(st.lists(st.sampled_from(["a", "b", "1", "x + 1"]), max_size=3))
        return f"{_pick(draw, 'foo', 'bar')}({draw(c)}{', '.join(args)});"
    if kind == 1:
        ty = _pick(draw, "", ": u8")
        return f"let {_pick(draw, '', 'mut ')}{_pick(draw, 'a', 'b')}{ty} = {_pick(draw, '1', 'x + 1')};"
    if kind == 2:
        return f"{_pick(draw, 'a', 'b')}{_pick(draw, '.', ' . ')}{_pick(draw, 'unwrap', 'expect')}();"
    if kind == 3:
        return f"return {_pick(draw, 'a', '1')};"
    return f"x {_pick(draw, '+', '-')} 1;"


@st.composite
def _source(draw: st.DrawFn, lang: str) -> str:
    if lang == "python":
        return "\n".join(draw(st.lists(_py_statement(), min_size=1, max_size=5))) + "\n"
    if lang == "rust":
        body = " ".join(draw(st.lists(_rs_statement(), min_size=1, max_size=5)))
        return f"fn {_pick(draw, 'f', 'g')}() {{ {body} }}\n"
    return "\n".join(draw(st.lists(_ts_statement(), min_size=1, max_size=5))) + "\n"


Hit = tuple[str, int, int]  # text, start line (0-based), start column


def _theirs(lang: str, pattern: str, strictness: str, source: str) -> set[Hit]:
    root = ag.SgRoot(source, lang).root()
    found = root.find_all(pattern={"context": pattern, "strictness": strictness})
    return {(n.text(), n.range().start.line, n.range().start.column) for n in found}


def _ours(lang: str, pattern: str, strictness: str, source: str) -> set[Hit]:
    compiled = compile_pattern(get(lang), pattern, strictness=strictness)
    like_them = dataclasses.replace(compiled, skip_trailing=True)
    return {(m.text, m.span.line - 1, m.span.column - 1)
            for m in search_source(like_them, source.encode())}


def _has_comment(lang: str, text: str) -> bool:
    return ("#" if lang == "python" else "/*") in text


@pytest.mark.parametrize("strictness", STRICTNESS)
@pytest.mark.parametrize("lang", sorted(PATTERNS))
def test_every_level_agrees_with_ast_grep(lang: str, strictness: str) -> None:
    skips_comments = strictness not in ("cst", "ast")

    @settings(max_examples=60, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow])
    @given(source=_source(lang), pattern=st.sampled_from(PATTERNS[lang]))
    def check(source: str, pattern: str) -> None:
        theirs = _theirs(lang, pattern, strictness, source)
        ours = _ours(lang, pattern, strictness, source)
        if skips_comments:
            assert theirs <= ours, (pattern, source)
            assert all(_has_comment(lang, text) for text, _, _ in ours - theirs), (pattern, source)
        else:
            assert ours == theirs, (pattern, source)

    check()


@pytest.mark.parametrize("strictness", STRICTNESS)
def test_levels_differ_on_the_generated_code(strictness: str) -> None:
    """The generators exercise what tells the levels apart: each level's matches on this
    source differ from at least one other level's (so a level that ignored its setting fails
    the differential test above)."""
    source = ("let a = 1; const b = 1; foo(a,); foo(/* c */ a); foo(b);\n"
              "import A from \"lib\"; async function f() { return 1; }\n")
    patterns = ["let $A = 1", "foo(a)", "import $A from 'lib'", "function $F() { return 1 }"]

    def hits(level: str) -> list[set[Hit]]:
        return [_theirs("typescript", p, level, source) for p in patterns]

    mine = hits(strictness)
    assert any(hits(other) != mine for other in STRICTNESS if other != strictness)
    assert mine == [_ours("typescript", p, strictness, source) for p in patterns]


REAL_PATTERNS = ["print($A)", "$A.append($B)", "isinstance($X, $T)", "return None",
                 "raise $E($$$A)", "self.$A = $B", "def $F(self): return $A", "[$$$A]",
                 "len($X) == 0", "import $M"]


@pytest.mark.parametrize("strictness", STRICTNESS)
def test_every_level_agrees_with_ast_grep_on_the_standard_library(strictness: str) -> None:
    """The same comparison on real code: a sample of the running Python's standard library."""
    from .test_differential import _python_tree, _sources

    files = _python_tree()[::5]
    skips_comments = strictness not in ("cst", "ast")
    total = 0
    for path, text in _sources(files):
        for pattern in REAL_PATTERNS:
            theirs = _theirs("python", pattern, strictness, text)
            ours = _ours("python", pattern, strictness, text)
            total += len(theirs)
            if skips_comments:
                assert theirs <= ours, (pattern, path)
                assert all("#" in t for t, _, _ in ours - theirs), (pattern, path)
            else:
                assert ours == theirs, (pattern, path)
    assert total > 100
