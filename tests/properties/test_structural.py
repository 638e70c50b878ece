"""The structural engine on generated inputs: code written as a pattern with its
metavariables filled in is matched by it, and rewriting it with the pattern as its own
template gives back the same bytes; `ast-edit` stages and then applies for any file name it
stages at all (refused at staging, with exit 2, only where apply would refuse)."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cli import main
from bot.structural.lang import get
from bot.structural.pattern import compile_pattern
from bot.structural.planpath import lexical_problem
from bot.structural.rewrite import compile_template, rewrite_source

# (language, pattern, fragments a single metavariable may stand for)
PATTERNS = [
    ("python", "print($A)", ["a", "b.c", "f(x)", "x[0]", "1", "'s'", "not a", "a + 1"]),
    ("python", "$X = compute($$$ARGS)", ["a", "b.c", "x[0]"]),
    ("python", "assert $A == $B", ["a", "f(x)", "1", "None", "b.c"]),
    ("python", "if $C:\n    $B", ["a", "f(x)", "a.b()"]),
    ("javascript", "console.log($$$A)", ["a", "b.c", "f(x)", "1", "'s'", "[1, 2]"]),
    ("javascript", "if ($X != null) $X.dispose()", ["a", "a.b", "this.c"]),
    ("go", "if $E != nil { return $E }", ["err", "e.Err", "errs[0]"]),
    ("rust", "$A.unwrap()", ["a", "b.c", "f(x)", "v[0]"]),
]
_VAR = re.compile(r"\$(\$\$)?([A-Z_][A-Z0-9_]*)")


@st.composite
def instances(draw: st.DrawFn) -> tuple[str, str, str]:
    """(language, pattern, the pattern's code with each metavariable filled, the same code
    for every use of one)."""
    lang, pattern, fragments = draw(st.sampled_from(PATTERNS))
    chosen: dict[str, str] = {}
    for multi, name in _VAR.findall(pattern):
        if name not in chosen:
            pick = st.sampled_from(fragments)
            chosen[name] = (", ".join(draw(st.lists(pick, max_size=3))) if multi
                            else draw(pick))
    code = _VAR.sub(lambda m: chosen[m.group(2)], pattern)
    return lang, pattern, code


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.sampled_from(["", "x = 0\n", "\n\n"]))
def test_the_pattern_as_its_own_template_rewrites_nothing(instance: tuple[str, str, str],
                                                          around: str) -> None:
    lang, pattern, code = instance
    if lang == "go":
        source = f"package p\n\nfunc f() error {{\n{around}\t{code}\n\treturn nil\n}}\n"
    elif lang == "rust":
        source = f"fn f() {{\n    {code};\n}}\n"
    else:
        source = around + code + "\n"
    compiled = compile_pattern(get(lang), pattern)
    result = rewrite_source(compiled, compile_template(pattern, compiled), source.encode())
    assert len(result.edits) >= 1, source  # the code written as the pattern is found
    assert result.new_source == source.encode() and not result.error


# File names: anything a POSIX file system takes but '/' and NUL, bytes that are not UTF-8 too.
names = st.binary(min_size=1, max_size=10).map(
    lambda b: b.replace(b"/", b"_").replace(b"\0", b"_") + b".py").map(os.fsdecode)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names)
def test_stage_then_apply_round_trips_for_any_name_stage_accepts(name: str) -> None:
    round_trip(name)


@pytest.mark.parametrize("name", ["a\\b.py", "-x.py", " .py", "\n.py", "é.py", "caf\udce9.py"])
def test_stage_then_apply_of_odd_names(name: str) -> None:
    round_trip(name)


def round_trip(name: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / name).write_bytes(b"print(1)\nprint(x, 2)\n")
        cwd = Path.cwd()
        os.chdir(root)
        try:
            staged = main(["ast-edit", "-l", "python", "-p", "print($$$A)", "-r", "log($$$A)",
                           "--stage", "plan.json", "--", name])
            if staged != 0:
                assert staged == 2 and lexical_problem(name) is not None, name
                assert not (root / "plan.json").exists()
                return
            assert main(["ast-edit", "--apply", "plan.json"]) == 0, name
        finally:
            os.chdir(cwd)
        assert (root / name).read_bytes() == b"log(1)\nlog(x, 2)\n"
