"""Languages: grammar names, file extensions and the ladder of wrapping contexts per language.

A context is a (prefix, suffix) pair the pattern is parsed inside, so that fragments which are
not whole programs (a Go call, a class field, a `return`) still parse. Order matters: the first
context that parses without error wins, so the most common reading comes first.
"""

from __future__ import annotations

import functools
import importlib.util
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, cast

import tree_sitter as ts

if TYPE_CHECKING:
    import tree_sitter_language_pack as tslp

from bot.errors import BotError, Exit


@dataclass(frozen=True)
class Context:
    label: str
    prefix: str
    suffix: str
    indent: str = ""  # Python: pattern lines are re-indented by this inside the wrapper


@dataclass(frozen=True)
class Lang:
    name: str  # our name (what --lang takes)
    grammar: str  # tree-sitter-language-pack name
    extensions: tuple[str, ...]
    # Metavariables are rewritten to this before parsing; `$` is not an identifier character
    # outside the JS family, `µ` is one everywhere it is used.
    expando: str
    contexts: tuple[Context, ...]


TOP = Context("top level", "", "")

_PY = (
    TOP,
    Context("function body", "def _():\n", "\n", "    "),
    Context("class body", "class _:\n", "\n", "    "),
    Context("argument", "_(", ")"),
    Context("parameter", "def _(", "):\n    pass\n"),
    Context("dict entry", "{", "}"),
    Context("subscript", "_[", "]"),
    Context("except clause", "try:\n    pass\n", "\n"),
    Context("elif/else clause", "if _:\n    pass\n", "\n"),
    Context("match case", "match _:\n", "\n", "    "),
    Context("decorator", "", "\ndef _():\n    pass\n"),
)

_JS = (
    TOP,
    Context("class member", "class _ {\n", "\n}"),
    Context("object member", "({\n", "\n})"),
    Context("function body", "function _() {\n", "\n}"),
    Context("generator body", "async function* _() {\n", "\n}"),
    Context("argument", "_(", ")"),
    Context("parameter", "function _(", ") {}"),
    Context("switch case", "switch (_) {\n", "\n}"),
    Context("catch clause", "try {} ", ""),
    Context("array element", "[", "]"),
)

_TS_ONLY = (
    Context("type", "let _: ", ";"),
    Context("interface member", "interface _ {\n", "\n}"),
    Context("type parameter", "function _<", ">() {}"),
)

_GO = (
    Context("statement", "package _\nfunc _() {\n", "\n}"),
    Context("top level", "package _\n", ""),
    Context("whole file", "", ""),
    Context("expression", "package _\nvar _ = ", ""),
    Context("type", "package _\nvar _ ", ""),
    Context("struct field", "package _\ntype _ struct {\n", "\n}"),
    Context("interface member", "package _\ntype _ interface {\n", "\n}"),
    Context("switch case", "package _\nfunc _() {\nswitch _ {\n", "\n}\n}"),
    Context("select case", "package _\nfunc _() {\nselect {\n", "\n}\n}"),
    Context("composite element", "package _\nvar _ = _{\n", "\n}"),
    Context("parameter", "package _\nfunc _(", ") {}"),
    Context("argument", "package _\nvar _ = _(", ")"),
    Context("import spec", "package _\nimport (\n", "\n)"),
)

_RUST = (
    Context("statement", "fn _() {\n", "\n}"),
    TOP,
    Context("expression", "fn _() { let _ = ", "; }"),
    Context("closure parameters", "fn _() { let _ = ", " 0; }"),
    Context("impl member", "impl _ {\n", "\n}"),
    Context("trait member", "trait _ {\n", "\n}"),
    Context("struct field", "struct _ {\n", "\n}"),
    Context("enum variant", "enum _ {\n", "\n}"),
    Context("match arm", "fn _() { match _ {\n", "\n} }"),
    Context("type", "type _ = ", ";"),
    Context("pattern", "fn _() { let ", " = _; }"),
    Context("parameter", "fn _(", ") {}"),
    Context("argument", "fn _() { _(", "); }"),
    Context("attribute", "", "\nfn _() {}"),
)

_C_FAMILY = (
    TOP,
    Context("function body", "void _() {\n", "\n}"),
    Context("expression", "void _() { _(", "); }"),
)

_JAVA = (
    TOP,
    Context("class member", "class T {\n", "\n}"),
    Context("method body", "class T { void m() {\n", "\n} }"),
    Context("expression", "class T { void m() { Object o = ", "; } }"),
)

_CSHARP = (
    TOP,
    Context("class member", "class T {\n", "\n}"),
    Context("method body", "class T { void M() {\n", "\n} }"),
    Context("expression", "class T { void M() { var o = ", "; } }"),
)

_KOTLIN = (
    TOP,
    Context("function body", "fun m() {\n", "\n}"),
    Context("class member", "class T {\n", "\n}"),
    Context("expression", "val o = ", ""),
)

LANGS: dict[str, Lang] = {
    lang.name: lang
    for lang in (
        Lang("python", "python", (".py", ".pyi"), "µ", _PY),
        Lang("javascript", "javascript", (".js", ".mjs", ".cjs", ".jsx"), "$", _JS),
        Lang("typescript", "typescript", (".ts", ".mts", ".cts"), "$", _JS + _TS_ONLY),
        Lang("tsx", "tsx", (".tsx",), "$", _JS + _TS_ONLY),
        Lang("go", "go", (".go",), "µ", _GO),
        Lang("rust", "rust", (".rs",), "µ", _RUST),
        Lang("c", "c", (".c", ".h"), "µ", _C_FAMILY),
        Lang("cpp", "cpp", (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx"), "µ", _C_FAMILY),
        Lang("java", "java", (".java",), "$", _JAVA),
        Lang("csharp", "csharp", (".cs",), "µ", _CSHARP),
        Lang("kotlin", "kotlin", (".kt", ".kts"), "µ", _KOTLIN),
        Lang("ruby", "ruby", (".rb",), "µ", (TOP,)),
        Lang("lua", "lua", (".lua",), "µ", (TOP,)),
        Lang("bash", "bash", (".sh", ".bash"), "µ", (TOP,)),
    )
}

ALIASES = {
    "py": "python", "js": "javascript", "jsx": "javascript", "ts": "typescript",
    "golang": "go", "rs": "rust", "c++": "cpp", "cs": "csharp", "c#": "csharp",
    "kt": "kotlin", "rb": "ruby", "sh": "bash",
}


def get(name: str) -> Lang:
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key not in LANGS:
        import difflib  # only a misspelt language needs it

        close = difflib.get_close_matches(key, sorted(LANGS), n=1, cutoff=0.6)
        near = f" (did you mean {close[0]!r}?)" if close else ""
        known = ", ".join(sorted(LANGS))
        raise BotError(f"unknown language {name!r}{near}; supported: {known}", Exit.USAGE)
    return LANGS[key]


def for_path(path: str | PurePath) -> Lang | None:
    """The language a file's extension says, or None."""
    suffix = PurePath(path).suffix.lower()
    for lang in LANGS.values():
        if suffix in lang.extensions:
            return lang
    return None


@functools.cache
def parser(grammar: str) -> ts.Parser:
    return ts.Parser(language(grammar))


@functools.cache
def language(grammar: str) -> ts.Language:
    # The pack's own module loads three grammar packages of its own on import (C#, YAML,
    # embedded templates: 15 to 50 ms); a review that reads Python needs one grammar, the
    # binding file the pack bundles, loaded alone.
    pack = importlib.util.find_spec("tree_sitter_language_pack")
    if pack is not None and pack.origin is not None:
        found = sorted((Path(pack.origin).parent / "bindings").glob(f"{grammar}.*.so"))
        spec = importlib.util.spec_from_file_location(
            f"tree_sitter_language_pack.bindings.{grammar}", found[0]) if found else None
        if spec is not None and spec.loader is not None:
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return ts.Language(module.language())
    import tree_sitter_language_pack as tslp

    return tslp.get_language(cast("tslp.SupportedLanguage", grammar))


def parse(grammar: str, source: bytes) -> ts.Tree:
    return parser(grammar).parse(source)
