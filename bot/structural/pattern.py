"""Compile a code pattern with metavariables into a tree to match.

Metavariables are lexed first and renamed to identifiers the grammar accepts; the pattern is
then parsed through the language's ladder of contexts, and the first parse without ERROR or
MISSING nodes is kept. The node that spans exactly the pattern text is the pattern. Text that
is several nodes side by side (two statements) is an error, as in ast-grep: a pattern has one
root node.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from typing import Literal

import tree_sitter as ts

from bot.errors import BotError, Exit
from bot.structural.lang import Context, Lang, parse

# ast-grep's levels, strictest first (bot.structural.match says what each one skips).
Strictness = Literal["cst", "smart", "ast", "relaxed", "signature", "template"]
STRICTNESS: tuple[Strictness, ...] = ("cst", "smart", "ast", "relaxed", "signature", "template")

NAME = r"[A-Z_][A-Z0-9_]*"
# `$$$NAME` / `$$$`, `$$NAME` (also unnamed tokens), `$NAME`; `$_...` never binds.
_META_IN_PATTERN = re.compile(rf"\$\$\$(?:{NAME})?|\$\$?{NAME}")
# Kinds that hold a statement list without delimiters of their own: a pattern spanning
# several of their children is several root nodes.
_SEQUENCE_KINDS = frozenset({"module", "program", "source_file", "statement_list", "block",
                             "translation_unit", "compilation_unit", "chunk"})


@dataclass(frozen=True, slots=True)
class Var:
    name: str  # "" when anonymous ($_, $$$, $_X): matches but never binds
    multi: bool  # $$$: zero or more siblings
    any_node: bool  # $$X: may also match unnamed tokens


@dataclass(frozen=True, slots=True)
class Leaf:
    kind_id: int
    text: bytes
    named: bool


@dataclass(frozen=True, slots=True)
class Inner:
    kind_id: int
    kind: str
    children: tuple[PNode, ...]
    named: bool


PNode = Var | Leaf | Inner


@dataclass(frozen=True)
class Pattern:
    lang: Lang
    text: str
    node: PNode
    root_kinds: tuple[str, ...]  # kind of the node ("" when it is a metavariable or any kind)
    context: str  # which ladder rung accepted it
    strictness: Strictness
    literals: tuple[bytes, ...]  # every one must occur in a file that can match
    names: frozenset[str]  # named metavariables
    multi_names: frozenset[str]
    # Under `smart`, ast-grep ignores whatever follows a node's last pattern element
    # (`assert $A == $B` matches asserts with a message). We do not; this switch exists for
    # differential tests (other levels follow ast-grep's own rule: Level.trailing).
    skip_trailing: bool = False


@dataclass(frozen=True)
class _Parsed:
    tree: ts.Tree
    source: bytes
    start: int
    end: int


def _meta_var(text: str, expando: str) -> Var | None:
    """A Var when `text` (after expansion) is exactly one metavariable."""
    if not text.startswith(expando):
        return None
    restored = "$" + text[1:] if expando != "$" else text
    restored = restored.replace(expando, "$")
    m = re.fullmatch(rf"(\$\$\$)({NAME})?|(\$\$?)({NAME})", restored)
    if not m:
        return None
    if m.group(1):
        name = m.group(2) or ""
        return Var("" if name.startswith("_") else name, True, False)
    name = m.group(4)
    return Var("" if name.startswith("_") else name, False, m.group(3) == "$$")


def _expand(pattern: str, expando: str) -> str:
    if expando == "$":
        return pattern
    return _META_IN_PATTERN.sub(lambda m: m.group(0).replace("$", expando), pattern)


def _wrap(snippet: str, ctx: Context) -> tuple[bytes, int, int]:
    body = snippet
    if ctx.indent:
        body = "\n".join(ctx.indent + line if line.strip() else line
                         for line in snippet.split("\n"))
        lead = len(ctx.indent)
    else:
        lead = 0
    pre = ctx.prefix.encode()
    data = pre + body.encode() + ctx.suffix.encode()
    start = len(pre) + lead
    end = len(pre) + len(body.encode())
    return data, start, end


def _first_error(node: ts.Node) -> ts.Node | None:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.is_error or n.is_missing:
            return n
        if n.has_error:
            stack.extend(reversed(n.children))
    return None


def _parse_in(lang: Lang, snippet: str, ctx: Context) -> tuple[_Parsed | None, str]:
    data, start, end = _wrap(snippet, ctx)
    tree = parse(lang.grammar, data)
    if tree.root_node.has_error:
        bad = _first_error(tree.root_node)
        where = ""
        if bad is not None:
            offset = max(0, min(bad.start_byte, end) - start)
            near = data[start:end].decode()[:offset].rsplit("\n", 1)[-1]
            line = data[start:start + offset].count(b"\n") + 1
            what = "missing " + bad.type if bad.is_missing else "syntax error"
            where = f"{what} at pattern line {line} column {len(near) + 1}"
        return None, where or "syntax error"
    return _Parsed(tree, data, start, end), ""


def _outermost_exact(node: ts.Node, start: int, end: int) -> ts.Node:
    while (node.parent is not None and node.parent.start_byte == start
           and node.parent.end_byte == end):
        node = node.parent
    return node


def _select(parsed: _Parsed) -> list[ts.Node] | None:
    """The node(s) that make up the pattern, or None when the snippet is not whole nodes."""
    root = parsed.tree.root_node
    node = root.descendant_for_byte_range(parsed.start, parsed.end)
    if node is None:
        return None
    exact = node.start_byte == parsed.start and node.end_byte == parsed.end
    kids = [c for c in node.children if not c.is_extra]
    if exact and not (_is_sequence_holder(node) and len(kids) > 1):
        return [node]
    run = [c for c in kids if c.start_byte >= parsed.start and c.end_byte <= parsed.end]
    if len(run) > 1 and run[0].start_byte == parsed.start and run[-1].end_byte == parsed.end:
        return run
    return None


def _is_sequence_holder(node: ts.Node) -> bool:
    if node.parent is not None and node.type not in _SEQUENCE_KINDS:
        return False
    return all(c.is_named for c in node.children if not c.is_extra)


def _find_kind(top: ts.Node, kind: str) -> ts.Node | None:
    stack = [top]
    while stack:
        n = stack.pop()
        if n.type == kind:
            return n
        stack.extend(reversed(n.children))
    return None


def _convert(node: ts.Node, data: bytes, expando: str) -> PNode:
    text = data[node.start_byte:node.end_byte].decode()
    var = _meta_var(text, expando)
    if var is not None:
        return var
    if node.child_count == 0:
        restored = text.replace(expando, "$") if expando != "$" else text
        return Leaf(node.kind_id, restored.encode(), node.is_named)
    children = tuple(_convert(c, data, expando) for c in node.children if not c.is_extra)
    return Inner(node.kind_id, node.type, children, node.is_named)


def _walk(nodes: tuple[PNode, ...]) -> list[PNode]:
    out: list[PNode] = []
    stack = list(nodes)
    while stack:
        n = stack.pop()
        out.append(n)
        if isinstance(n, Inner):
            stack.extend(n.children)
    return out


def _literals(node: PNode, strictness: Strictness) -> tuple[bytes, ...]:
    """Texts every match contains: none under `signature` (leaf text is not compared), the
    named leaves' under `ast`/`relaxed` (tokens may be skipped), every leaf's otherwise."""
    if strictness == "signature":
        return ()
    named_only = strictness in ("ast", "relaxed")
    found = {n.text for n in _walk((node,))
             if isinstance(n, Leaf) and n.text.strip() and (n.named or not named_only)}
    return tuple(sorted(found, key=lambda b: (-len(b), b)))


def _kind_of(node: PNode, lang: Lang) -> str:
    if isinstance(node, Inner):
        return node.kind
    if isinstance(node, Leaf):
        from bot.structural.lang import language
        name = language(lang.grammar).node_kind_for_id(node.kind_id)
        return name or ""
    return ""


def compile_pattern(
    lang: Lang,
    text: str,
    *,
    selector: str | None = None,
    strictness: str = "smart",
    context: str | None = None,
) -> Pattern:
    """Compile `text` (or `context` + `selector`, ast-grep's pattern object) for `lang`."""
    if strictness not in STRICTNESS:
        raise BotError(f"unknown strictness {strictness!r}; use one of {', '.join(STRICTNESS)}",
                       Exit.USAGE)
    source = context if context is not None else text
    snippet = textwrap.dedent(source).strip()
    if not snippet:
        raise BotError("empty pattern", Exit.USAGE)
    expanded = _expand(snippet, lang.expando)
    tried: list[str] = []
    for ctx in lang.contexts:
        parsed, why = _parse_in(lang, expanded, ctx)
        if parsed is None:
            tried.append(f"{ctx.label}: {why}")
            continue
        nodes = _pick(parsed, selector)
        if nodes is None:
            tried.append(f"{ctx.label}: not a whole node" if selector is None
                         else f"{ctx.label}: no {selector!r} node")
            continue
        if len(nodes) > 1:
            raise _several_roots(snippet, nodes)
        return _build(lang, source, nodes[0], parsed, ctx, strictness)
    others = ", ".join(t.split(":")[0] for t in tried[1:])
    raise BotError(
        f"pattern {snippet!r} is not valid {lang.name} code in any of the {len(tried)} "
        f"contexts tried ({tried[0]}" + (f"; also tried: {others}" if others else "") + "); "
        "fix the syntax, or give a larger pattern with --selector KIND",
        Exit.USAGE,
    )


def _several_roots(snippet: str, nodes: list[ts.Node]) -> BotError:
    kinds = ", ".join(n.type for n in nodes)
    return BotError(
        f"pattern {snippet!r} is {len(nodes)} nodes side by side ({kinds}), and a pattern must "
        "have one root node (ast-grep refuses it too: multiple AST nodes); search for one of "
        "them, or write a rule that joins patterns with `follows` / `precedes`",
        Exit.USAGE,
    )


def _pick(parsed: _Parsed, selector: str | None) -> list[ts.Node] | None:
    nodes = _select(parsed)
    if selector is None or nodes is None:
        return nodes
    top = _outermost_exact(nodes[0], parsed.start, parsed.end) if len(nodes) == 1 else None
    for start in [top] if top is not None else nodes:
        found = _find_kind(start, selector)
        if found is not None:
            return [found]
    return None


def _build(
    lang: Lang,
    source: str,
    root: ts.Node,
    parsed: _Parsed,
    ctx: Context,
    strictness: Strictness,
) -> Pattern:
    node = _convert(root, parsed.source, lang.expando)
    if isinstance(node, Var) and node.multi:
        raise BotError("a pattern cannot be only a $$$ metavariable; add code around it",
                       Exit.USAGE)
    variables = [n for n in _walk((node,)) if isinstance(n, Var) and n.name]
    # `template` compares text, not kinds, so a node of any kind may match.
    any_kind = isinstance(node, Var) or strictness == "template"
    return Pattern(
        lang=lang,
        text=source,
        node=node,
        root_kinds=("",) if any_kind else (_kind_of(node, lang),),
        context=ctx.label,
        strictness=strictness,
        literals=_literals(node, strictness),
        names=frozenset(v.name for v in variables),
        multi_names=frozenset(v.name for v in variables if v.multi),
    )
