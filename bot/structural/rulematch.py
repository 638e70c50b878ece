"""Where a rule matches: every node of a parsed tree, tried against the rule's keys in order
(atomic, relational, composite); metavariables bound by one key constrain the next and the
first binding wins (see bot.structural.rules for the format). Pure over a tree and its bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import tree_sitter as ts

from bot.errors import BotError, Exit
from bot.structural.lang import parse
from bot.structural.match import Env, Matcher, RawMatch, raw_match
from bot.structural.pattern import Pattern
from bot.structural.rules import Relation, Rule, RuleConfig


@dataclass
class Context:
    config: RuleConfig
    source: bytes
    matchers: dict[int, Matcher] = field(default_factory=dict)

    def matcher(self, pattern: Pattern) -> Matcher:
        key = id(pattern)
        if key not in self.matchers:
            self.matchers[key] = Matcher(pattern)
        return self.matchers[key]


def _children(node: ts.Node) -> list[ts.Node]:
    return [c for c in node.children if c.is_named and not c.is_extra]


def _descendants(node: ts.Node) -> Iterator[ts.Node]:
    stack = list(reversed(_children(node)))
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(_children(current)))


def _siblings(node: ts.Node, forward: bool) -> Iterator[ts.Node]:
    current = node.next_named_sibling if forward else node.prev_named_sibling
    while current is not None:
        if not current.is_extra:
            yield current
        current = current.next_named_sibling if forward else current.prev_named_sibling


def _ancestors(node: ts.Node) -> Iterator[ts.Node]:
    current = node.parent
    while current is not None:
        yield current
        current = current.parent


def _nearby(rel: Relation, key: str, node: ts.Node) -> Iterator[ts.Node]:
    """The nodes a relation looks at, nearest first; `field` applied, `stopBy` not yet."""
    if key == "inside":
        below = node
        for ancestor in _ancestors(node):
            at = ancestor.child_by_field_name(rel.field) if rel.field else None
            if rel.field is None or (at is not None and at.id == below.id):
                yield ancestor
            elif rel.stop_by == "neighbor":
                return  # the parent does not hold `node` at that field
            below = ancestor
    elif key == "has" and rel.field is not None:
        child = node.child_by_field_name(rel.field)
        if child is not None:
            yield child
            if rel.stop_by != "neighbor":
                yield from _descendants(child)
    elif key == "has":
        yield from _children(node) if rel.stop_by == "neighbor" else _descendants(node)
    else:
        yield from _siblings(node, forward=key == "precedes")


def _candidates(rel: Relation, key: str, node: ts.Node, ctx: Context, env: Env) -> Iterator[ts.Node]:
    """`_nearby` cut by `stopBy`: the nearest only (neighbor; for `has`, the children), all
    (end), or up to and including the first node the stop rule matches."""
    for candidate in _nearby(rel, key, node):
        yield candidate
        if rel.stop_by == "neighbor" and key != "has":
            return
        if isinstance(rel.stop_by, Rule) and match(rel.stop_by, candidate, env, ctx) is not None:
            return


def _relate(rel: Relation, key: str, node: ts.Node, env: Env, ctx: Context) -> Env | None:
    for candidate in _candidates(rel, key, node, ctx, env):
        got = match(rel.rule, candidate, env, ctx)
        if got is not None:
            return got  # the first that matches binds; no backtracking
    return None


def match(rule: Rule, node: ts.Node, env: Env, ctx: Context) -> Env | None:
    if rule.kind is not None and node.type != rule.kind:
        return None
    if rule.pattern is not None:
        got = ctx.matcher(rule.pattern).node(rule.pattern.node, node, env)
        if got is None:
            return None
        env = got
    if rule.regex is not None and not rule.regex.search(
            ctx.source[node.start_byte:node.end_byte].decode("utf-8", errors="replace")):
        return None
    for key in ("inside", "has", "precedes", "follows"):
        rel = getattr(rule, key)
        if rel is not None:
            got = _relate(rel, key, node, env, ctx)
            if got is None:
                return None
            env = got
    for sub in rule.all:
        got = match(sub, node, env, ctx)
        if got is None:
            return None
        env = got
    if rule.any is not None:
        got = next((g for sub in rule.any if (g := match(sub, node, env, ctx)) is not None), None)
        if got is None:
            return None
        env = got
    if rule.not_ is not None and match(rule.not_, node, env, ctx) is not None:
        return None
    if rule.matches is not None:
        return match(_util(ctx, rule.matches), node, env, ctx)
    return env


def _util(ctx: Context, name: str) -> Rule:
    util = ctx.config.utils.get(name)
    if util is None:
        raise BotError(f"matches: no util named {name!r}", Exit.USAGE)
    return util


def _constrained(env: Env, ctx: Context) -> bool:
    for name, rule in ctx.config.constraints.items():
        value = env.get(name)
        if value is None:
            continue
        if isinstance(value, tuple):
            if not all(match(rule, n, {}, ctx) is not None for n in value):
                return False
        elif match(rule, value, {}, ctx) is None:
            return False
    return True


def _walk(root: ts.Node) -> Iterator[ts.Node]:
    stack = [root]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed([c for c in current.children if not c.is_extra]))


def find_rule(config: RuleConfig, tree: ts.Tree, source: bytes) -> Iterator[tuple[ts.Node, RawMatch]]:
    """Every node the rule matches, in pre-order, with its bindings."""
    ctx = Context(config, source)
    for node in _walk(tree.root_node):
        env = match(config.rule, node, {}, ctx)
        if env is not None and _constrained(env, ctx):
            yield node, raw_match(node.start_byte, node.end_byte, env)


def search_rule(config: RuleConfig, source: bytes) -> list[RawMatch]:
    return [raw for _, raw in find_rule(config, parse(config.lang.grammar, source), source)]
