"""What code in other packages can see of a Go package: whether its importers need checking.

A Go change that only rewrites function bodies cannot give an importer in another package a new
type error: Go infers no function's result type from its body, so the importer type-checks
against the same declarations. gopls' analyzers are the exception, through the facts they pass
between packages, and those are kept on the checking side:

- printf: a function whose last parameter is `...any` / `...interface{}` may become (or stop
  being) a printf wrapper through its body;
- ctrlflow (lostcancel in importers): a function may come to never return; a body that calls a
  never-returning function by name, or whose last statement could end in such a call (a call
  statement, an `if` with `else`, a switch, a `select`, an endless `for`, a block, a label, a
  `goto`), counts as changing that (not seen: an unconditional call to a never-returning
  helper of another name before a last `return`, which leaves that `return` unreachable, a vet
  finding of its own);
- the inliner: a `//go:fix inline` function's body is what importers are offered;
- deprecated: doc comments belong to the declaration, so a `Deprecated:` note is a change.

So a package's importers are skipped only when, over its changed non-test files, every
declaration outside function bodies (doc comments, directives and struct tags included; import
lists left out, except cgo's `import "C"` and its preamble) reads the same token for token, no
changed body is one of those above, and nothing was removed. An added function, type, variable
or constant cannot be named by an unchanged importer, unless the importer imports the package
with `.` (the caller says so: `dot_imported`); an added method can make an importer's selector
ambiguous, so it counts as a change. Whatever does not parse counts as a change.

Pure functions over source bytes; `bot.lsp.analyzer` reads the files.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from bot.lsp.importers import node_text, parser, walk

Kind = Literal["func", "method", "type", "var", "const"]

# Functions and methods ctrlflow knows never return (builtin panic, os.Exit, log.Fatal…,
# runtime.Goexit, testing's FailNow/Fatal/Skip…), by the name at the call.
NEVER_RETURN = frozenset({"panic", "Exit", "Fatal", "Fatalf", "Fatalln", "Panic", "Panicf",
                          "Panicln", "Goexit", "FailNow", "SkipNow", "Skip", "Skipf"})
# Last statements after which a body might still end in a call that never returns.
_OPEN_ENDS = frozenset({"if_statement", "expression_switch_statement", "type_switch_statement",
                        "select_statement", "block", "labeled_statement", "goto_statement"})
_DIRECTIVES = ("//go:", "//line ", "// +build", "//export ")
_ATOMS = frozenset({"interpreted_string_literal", "raw_string_literal", "rune_literal"})
_DECLS: Mapping[str, Kind] = {"function_declaration": "func", "method_declaration": "method",
                              "type_declaration": "type", "var_declaration": "var",
                              "const_declaration": "const"}


@dataclass(frozen=True)
class Decl:
    kind: Kind
    surface: str  # its tokens outside a function body, with the comments above it
    body: str  # a function's body tokens ("" for the other kinds)
    facts: bool  # the body may change what other packages' analyzers know of it


@dataclass(frozen=True)
class FileSurface:
    header: str  # build constraints, the package clause, cgo's import and preamble
    decls: tuple[tuple[str, Decl], ...]  # (key, declaration) in file order


def parse(source: bytes) -> FileSurface | None:
    """The file's declarations as importers see them; None when it does not parse."""
    root = parser("go").parse(source).root_node
    if root.has_error:
        return None
    header: list[str] = []
    decls: list[tuple[str, Decl]] = []
    comments: list[Any] = []
    seen_package = False
    for node in root.children:
        if node.type == "comment":
            comments.append(node)
            continue
        above, comments = comments, []
        if node.type == "package_clause":
            header += [*(node_text(c) for c in above), _tokens(node)]
            seen_package = True
        elif node.type == "import_declaration":
            if '"C"' in _tokens(node):
                header += [*(node_text(c) for c in above), _tokens(node)]
        elif node.type in _DECLS:
            key = _key(node)
            if key is not None:
                decls.append((key, _decl(node, above)))
        elif not seen_package or node.type != ";":
            header.append(_tokens(node))  # anything unexpected is compared whole
    # After the last declaration only a directive can matter (`//go:linkname` goes anywhere).
    header += [text for c in comments if (text := node_text(c)).startswith(_DIRECTIVES)]
    return FileSurface("\n".join(header), tuple(decls))


def package_change(base: Sequence[FileSurface | None], head: Sequence[FileSurface | None],
                   dot_imported: bool = False) -> str | None:
    """Why another package's code might see a difference between the base's and the head's
    versions of a package's changed files; None when it cannot."""
    if any(s is None for s in (*base, *head)):
        return "a changed file does not parse"
    old, new = _merged(base), _merged(head)
    if old is None or new is None:
        return "a declaration is there twice"
    if sorted(s.header for s in base if s) != sorted(s.header for s in head if s):
        return "the package clause, its doc, build constraints, cgo preamble or a directive changed"
    for key, decl in old.items():
        now = new.get(key)
        if now is None:
            return f"{key} was removed"
        if now.surface != decl.surface:
            return f"{key} changed"
        if now.body != decl.body and (now.facts or decl.facts):
            return f"the body of {key} may change what analyzers know of it"
    for key, decl in new.items():
        if key in old:
            continue
        if decl.kind == "method":
            return f"{key} was added"
        if dot_imported:
            return f"{key} was added to a package imported with '.'"
    return None


def added(base: Sequence[FileSurface | None], head: Sequence[FileSurface | None]) -> bool:
    """Does the head declare a name the base did not (what matters to a `.` import)?"""
    old, new = _merged(base), _merged(head)
    return old is None or new is None or bool(new.keys() - old.keys())


def _merged(files: Sequence[FileSurface | None]) -> dict[str, Decl] | None:
    out: dict[str, Decl] = {}
    for surface in files:
        for key, decl in surface.decls if surface else ():
            if key in out:
                return None
            out[key] = decl
    return out


def _key(node: Any) -> str | None:
    kind = _DECLS[node.type]
    if kind in ("func", "method"):
        name = node_text(node.child_by_field_name("name"))
        if kind == "func":
            # init cannot be named; each file may have its own.
            return None if name == "init" else f"func {name}"
        receiver = node.child_by_field_name("receiver")
        types = [n for n in walk(receiver) if n.type == "type_identifier"]
        return f"method {node_text(types[0]) if types else '?'}.{name}"
    names = sorted(node_text(name) for spec in _specs(node) for name in _named(spec, "name"))
    named = [n for n in names if n != "_"]
    if not names:
        return f"{kind} {_tokens(node)}"  # a shape not foreseen: compared whole
    return f"{kind} {','.join(named)}" if named else None


def _specs(node: Any) -> Iterator[Any]:
    for child in node.named_children:
        if child.type.endswith("_spec_list"):
            yield from child.named_children
        elif child.type != "comment":
            yield child


def _named(node: Any, field: str) -> list[Any]:
    return [c for i, c in enumerate(node.children) if node.field_name_for_child(i) == field]


def _decl(node: Any, comments: list[Any]) -> Decl:
    kind = _DECLS[node.type]
    doc = [node_text(c) for c in comments]
    if kind not in ("func", "method"):
        return Decl(kind, "\n".join([*doc, _tokens(node)]), "", False)
    body = node.child_by_field_name("body")
    outside = " ".join(_tokens(c) for c in node.children if c != body)
    inline = any(line.startswith("//go:fix inline") for line in doc)
    facts = inline or _variadic_any(node) or (body is not None and _may_not_return(body))
    return Decl(kind, "\n".join([*doc, outside]), _tokens(body) if body else "", facts)


def _variadic_any(node: Any) -> bool:
    params = node.child_by_field_name("parameters")
    last = params.named_children[-1] if params and params.named_children else None
    if last is None or last.type != "variadic_parameter_declaration":
        return False
    kind = last.child_by_field_name("type")
    text = _tokens(kind) if kind is not None else ""
    return text in ("any", "interface { }")


def _may_not_return(body: Any) -> bool:
    # Calls inside function literals count too: one called on the spot would not return.
    for node in walk(body):
        if node.type == "call_expression":
            callee = node.child_by_field_name("function")
            if callee is not None and _callee_name(callee) in NEVER_RETURN:
                return True
    statements = [n for n in body.named_children if n.type == "statement_list"]
    items = statements[0].named_children if statements else body.named_children
    items = [n for n in items if n.type != "comment"]
    if not items:
        return False
    last = items[-1]
    if last.type == "expression_statement":
        return any(n.type == "call_expression" for n in last.named_children)
    if last.type == "if_statement":
        return last.child_by_field_name("alternative") is not None
    if last.type == "for_statement":
        return _endless(last)
    return last.type in _OPEN_ENDS


def _endless(loop: Any) -> bool:
    """A `for` with no condition (or `true`): only a break, a return or a panic leaves it."""
    body = loop.child_by_field_name("body")
    heads = [n for n in loop.named_children if n != body and n.type != "comment"]
    if not heads:
        return True
    head = heads[0]
    if head.type == "range_clause":
        return False
    if head.type == "for_clause":
        head = head.child_by_field_name("condition")
        if head is None:
            return True
    return _tokens(head) == "true"


def _callee_name(callee: Any) -> str:
    if callee.type == "selector_expression":
        field = callee.child_by_field_name("field")
        return node_text(field) if field is not None else ""
    return node_text(callee) if callee.type == "identifier" else ""


def _tokens(node: Any) -> str:
    """The node's tokens joined by one space: layout changes nothing, a literal stays whole."""
    out: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.child_count == 0 or current.type in _ATOMS:
            out.append(node_text(current))
        else:
            stack.extend(reversed(current.children))
    return " ".join(out)
