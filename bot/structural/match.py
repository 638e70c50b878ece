"""Find a compiled pattern in a parsed tree.

The pattern's strictness (ast-grep's levels, `Level` below) says what may differ. By default
(`smart`) every pattern token must match; unnamed source tokens the pattern lacks (`;`,
trailing commas) are skipped where the pattern expects a token, comments everywhere.
`$$$` is lazy: it takes the fewest siblings after which the next named pattern node matches;
a longer split is tried only when the rest of the pattern then fails. A metavariable bound
twice must bind code with the same leaf tokens (layout and comments ignored). A failed
attempt never leaks bindings: the environment is rebuilt, never mutated.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import tree_sitter as ts

from bot.structural.lang import language
from bot.structural.pattern import Leaf, Pattern, PNode, Strictness, Var

Env = Mapping[str, "ts.Node | tuple[ts.Node, ...]"]


@dataclass(frozen=True, slots=True)
class Binding:
    """What one metavariable captured: byte range of the text, and each node for `$$$`."""

    start: int
    end: int
    multi: bool
    items: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class RawMatch:
    start: int  # byte offsets in the source
    end: int
    bindings: Mapping[str, Binding]


def tokens(node: ts.Node) -> tuple[bytes, ...]:
    """Leaf texts of `node`, comments left out: what "the same code" compares."""
    out: list[bytes] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.is_extra and n is not node:
            continue
        if n.child_count == 0:
            out.append(n.text or b"")
        else:
            stack.extend(reversed(n.children))
    return tuple(out)


def _same(a: ts.Node | tuple[ts.Node, ...], b: ts.Node | tuple[ts.Node, ...]) -> bool:
    if isinstance(a, tuple) or isinstance(b, tuple):
        if not (isinstance(a, tuple) and isinstance(b, tuple)):
            return False
        na = [n for n in a if n.is_named and not n.is_extra]
        nb = [n for n in b if n.is_named and not n.is_extra]
        return len(na) == len(nb) and all(tokens(x) == tokens(y) for x, y in zip(na, nb, strict=True))
    return a.id == b.id or tokens(a) == tokens(b)


def _bind(env: Env, name: str, value: ts.Node | tuple[ts.Node, ...]) -> Env | None:
    if not name:
        return env
    old = env.get(name)
    if old is None:
        return {**env, name: value}
    return env if _same(old, value) else None


@dataclass(frozen=True, slots=True)
class Level:
    """What one strictness level lets differ between the pattern and the code (ast-grep's
    match algorithm; each level checked against ast-grep-py in the differential tests)."""

    comments: bool  # comments in the code are skipped (not under cst and ast)
    source_tokens: bool  # unnamed code tokens may be skipped where a pattern token fails
    pattern_tokens: bool  # unnamed pattern tokens may go unmatched
    leaf_text: bool  # a named leaf must have the pattern's text, not only its kind
    inner_kind: bool  # an inner node must have the pattern's kind
    any_text_leaf: bool  # a leaf with the pattern's text matches whatever its kind
    trailing: bool  # unnamed code tokens after the last pattern element are ignored
    trailing_any: bool  # ast-grep ignores anything there (see Pattern.skip_trailing)


_ALL = Level(comments=True, source_tokens=True, pattern_tokens=False, leaf_text=True,
             inner_kind=True, any_text_leaf=False, trailing=True, trailing_any=False)
LEVELS: Mapping[Strictness, Level] = {
    "cst": dataclasses.replace(_ALL, comments=False, source_tokens=False, trailing=False),
    "smart": dataclasses.replace(_ALL, trailing_any=True),
    "ast": dataclasses.replace(_ALL, comments=False, pattern_tokens=True),
    "relaxed": dataclasses.replace(_ALL, pattern_tokens=True),
    "signature": dataclasses.replace(_ALL, pattern_tokens=True, leaf_text=False),
    # ast-grep 0.51 keeps a trailing `;` significant here (`let $A = 1` misses `let a = 1;`).
    "template": dataclasses.replace(_ALL, inner_kind=False, any_text_leaf=True, trailing=False),
}


class Matcher:
    def __init__(self, pattern: Pattern) -> None:
        self.pattern = pattern
        level = LEVELS[pattern.strictness]
        self.level = level
        self.skip_extras = level.comments
        self.skip_source_tokens = level.source_tokens
        self.skip_pattern_tokens = level.pattern_tokens
        self.leaf_text = level.leaf_text
        self.any_text_leaf = level.any_text_leaf
        self.skip_trailing = pattern.skip_trailing and level.trailing_any

    def children(self, node: ts.Node) -> list[ts.Node]:
        if self.skip_extras:
            return [c for c in node.children if not c.is_extra]
        return node.children

    def node(self, p: PNode, c: ts.Node, env: Env) -> Env | None:
        if isinstance(p, Var):
            if p.multi:
                return _bind(env, p.name, (c,))
            if not p.any_node and not c.is_named:
                return None
            return _bind(env, p.name, c)
        if isinstance(p, Leaf):
            if c.kind_id == p.kind_id:
                # An unnamed token is its kind (tree-sitter-typescript gives some a wrong
                # span, so ast-grep does not compare their text either).
                return env if not p.named or not self.leaf_text or c.text == p.text else None
            return env if self.any_text_leaf and c.text == p.text else None
        if c.kind_id != p.kind_id and self.level.inner_kind:
            return None
        cs = self.children(c)
        if not cs:
            return None
        got = self.seq(p.children, cs, env)
        return None if got is None else got[0]

    def _optional(self, p: PNode) -> bool:
        """Pattern tokens after `$$$` that need not match (they end up in the capture's tail)."""
        return isinstance(p, Leaf) and not p.named

    def seq(
        self, ps: tuple[PNode, ...], cs: list[ts.Node], env: Env, i: int = 0, j: int = 0,
    ) -> tuple[Env, int] | None:
        """Match pattern siblings `ps[i:]` against `cs[j:]`; returns the env and the index
        in `cs` where the match ended."""
        n, m = len(ps), len(cs)
        while i < n:
            p = ps[i]
            if isinstance(p, Var) and p.multi:
                return self._ellipsis(ps, cs, env, i, j)
            if j >= m:
                if self.skip_pattern_tokens and isinstance(p, Leaf) and not p.named:
                    i += 1
                    continue
                return None
            c = cs[j]
            got = self.node(p, c, env)
            if got is not None:
                env, i, j = got, i + 1, j + 1
            elif not isinstance(p, Leaf):
                # Only a pattern token lets source tokens be skipped: `($P) => $B` must
                # not match `async (x) => 1` (ast-grep agrees).
                return None
            else:
                skip_code = self.skip_source_tokens and not c.is_named
                skip_pattern = self.skip_pattern_tokens and not p.named
                if not (skip_code or skip_pattern):
                    return None
                # Both unnamed and both skippable: both go, as in ast-grep.
                i, j = i + skip_pattern, j + skip_code
        if self.skip_trailing:
            return env, j
        while j < m:
            if not (self.level.trailing and not cs[j].is_named):
                return None
            j += 1
        return env, j

    def _ellipsis(
        self, ps: tuple[PNode, ...], cs: list[ts.Node], env: Env, i: int, j: int
    ) -> tuple[Env, int] | None:
        """`ps[i]` is `$$$`: take the fewest siblings that let the rest match. The shortest
        split is tried first (so `$$$` is lazy, as in ast-grep); a longer one only when the
        rest fails, where ast-grep gives up."""
        p = ps[i]
        assert isinstance(p, Var)
        n, m = len(ps), len(cs)
        k = i + 1
        while k < n and self._optional(ps[k]):
            k += 1
        if k == n:
            bound = _bind(env, p.name, tuple(_trim_tail(cs[j:m], ps[i + 1:k])))
            return None if bound is None else (bound, m)
        nxt = ps[k]
        if isinstance(nxt, Var) and nxt.multi:
            bound = _bind(env, p.name, ())
            return None if bound is None else self.seq(ps, cs, bound, i=k, j=j)
        for end in range(j, m):
            if self.node(nxt, cs[end], env) is None:
                continue
            bound = _bind(env, p.name, tuple(_trim_tail(cs[j:end], ps[i + 1:k])))
            if bound is None:
                continue
            got = self.seq(ps, cs, bound, i=k, j=end)
            if got is not None:
                return got
        return None


def _trim_tail(taken: list[ts.Node], tokens_after: tuple[PNode, ...]) -> list[ts.Node]:
    """Drop trailing separators that the pattern's own tokens after `$$$` account for."""
    out = list(taken)
    for p in reversed(tokens_after):
        if out and isinstance(p, Leaf) and not out[-1].is_named and out[-1].text == p.text:
            out.pop()
    return out


@functools.cache
def _query(grammar: str, kind: str, named: bool) -> ts.Query:
    if not kind:
        return ts.Query(language(grammar), "(_) @c" if named else "_ @c")
    if named:
        return ts.Query(language(grammar), f"({kind}) @c")
    escaped = kind.replace("\\", "\\\\").replace('"', '\\"')
    return ts.Query(language(grammar), f'"{escaped}" @c')


# Above this many occurrences of the pattern's rarest literal, one walk of the whole tree
# (a tree-sitter query, in C) is cheaper than climbing from every occurrence.
LITERAL_CLIMB_LIMIT = 2000


def _climb_from_literals(pattern: Pattern, root: ts.Node, source: bytes) -> list[ts.Node] | None:
    """Nodes of the pattern's kind that contain an occurrence of the pattern's rarest literal.

    Every match contains a token equal to each literal, so it is an ancestor of the token
    found at one of that literal's occurrences; looking only there skips the tree walk.
    """
    anchor = pattern.node
    if isinstance(anchor, Var) or not pattern.root_kinds[0] or not pattern.literals:
        return None
    counts = [(source.count(lit), lit) for lit in pattern.literals[:4]]
    count, lit = min(counts)
    if count > LITERAL_CLIMB_LIMIT:
        return None
    kind_id = anchor.kind_id
    found: dict[int, ts.Node] = {}
    visited: set[int] = set()
    at = source.find(lit)
    while at != -1:
        node = root.descendant_for_byte_range(at, at + len(lit))
        while node is not None and node.id not in visited:
            visited.add(node.id)
            if node.kind_id == kind_id:
                found[node.id] = node
            node = node.parent
        at = source.find(lit, at + 1)
    return list(found.values())


def candidates(pattern: Pattern, root: ts.Node, source: bytes | None = None) -> list[ts.Node]:
    """Nodes of the pattern's kind (any kind for a bare metavariable or under `template`),
    in pre-order (outer before inner)."""
    found = _climb_from_literals(pattern, root, source) if source is not None else None
    if found is None:
        p = pattern.node
        named = not p.any_node if isinstance(p, Var) else p.named
        query = _query(pattern.lang.grammar, pattern.root_kinds[0], named)
        found = ts.QueryCursor(query).captures(root).get("c", [])
    found.sort(key=lambda n: (n.start_byte, -n.end_byte))
    return found


def _binding(value: ts.Node | tuple[ts.Node, ...], at: int) -> Binding:
    if isinstance(value, tuple):
        if not value:
            return Binding(at, at, True)
        items = tuple((n.start_byte, n.end_byte) for n in value)
        return Binding(value[0].start_byte, value[-1].end_byte, True, items)
    return Binding(value.start_byte, value.end_byte, False)


def raw_match(start: int, end: int, env: Env) -> RawMatch:
    return RawMatch(start, end, {k: _binding(v, start) for k, v in env.items()})


def find(pattern: Pattern, tree: ts.Tree, source: bytes | None = None) -> Iterator[RawMatch]:
    """Every match in pre-order, nested ones included. With the `source` bytes the search
    starts from the occurrences of the pattern's literal tokens instead of walking the tree."""
    matcher = Matcher(pattern)
    p = pattern.node
    for c in candidates(pattern, tree.root_node, source):
        env = matcher.node(p, c, {})
        if env is not None:
            yield raw_match(c.start_byte, c.end_byte, env)
