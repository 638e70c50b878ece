"""A rule's fix: transforms (`convert`, `replace`, `substring`), the range widened by
`expandStart`/`expandEnd`, and the rewrite of every outermost match. Pure over bytes."""

from __future__ import annotations

import re
from collections.abc import Callable

import tree_sitter as ts

from bot.structural.lang import parse
from bot.structural.match import RawMatch
from bot.structural.rewrite import FileRewrite, Ref, Template, compile_template_names, rewrite_matches
from bot.structural.rulematch import Context, find_rule, match
from bot.structural.rules import Rule, RuleConfig, fail


def to_case(text: str, case: str) -> str:
    words = [w for w in re.split(r"[_\-\s]+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", text) if w]
    if case == "lowerCase":
        return text.lower()
    if case == "upperCase":
        return text.upper()
    if case == "capitalize":
        return text[:1].upper() + text[1:]
    if case == "snakeCase":
        return "_".join(w.lower() for w in words)
    if case == "kebabCase":
        return "-".join(w.lower() for w in words)
    if case == "pascalCase":
        return "".join(w[:1].upper() + w[1:].lower() for w in words)
    return "".join(w.lower() if i == 0 else w[:1].upper() + w[1:].lower() for i, w in enumerate(words))


def _transformed(config: RuleConfig, raw: RawMatch, source: bytes) -> dict[str, str]:
    values: dict[str, str] = {}
    for name, t in config.transform.items():
        if t.source in values:
            text = values[t.source]
        elif t.source in raw.bindings:
            b = raw.bindings[t.source]
            text = source[b.start:b.end].decode("utf-8", errors="replace")
        else:
            continue
        if t.kind == "convert":
            values[name] = to_case(text, t.to_case)
        elif t.kind == "replace" and t.replace is not None:
            # `by` names groups as $1 / ${name}, as ast-grep does; Python spells them \g<...>.
            by = re.sub(r"\$\{?(\w+)\}?", r"\\g<\1>", t.by.replace("\\", "\\\\"))
            values[name] = t.replace.sub(by, text)
        else:
            values[name] = text[t.start:t.end]
    return values


def _expand(node: ts.Node, rule: Rule | None, forward: bool, ctx: Context) -> int:
    """The fix range's edge, widened over neighbouring nodes (tokens too) the rule matches."""
    edge = node.end_byte if forward else node.start_byte
    if rule is None:
        return edge
    current = node.next_sibling if forward else node.prev_sibling
    while current is not None and match(rule, current, {}, ctx) is not None:
        edge = current.end_byte if forward else current.start_byte
        current = current.next_sibling if forward else current.prev_sibling
    return edge


def rewrite_rule(config: RuleConfig, source: bytes, tree: ts.Tree | None = None) -> FileRewrite:
    """Apply the rule's fix to every outermost match (see `rewrite.rewrite_matches`)."""
    if config.fix is None:
        raise fail("fix", "this rule has no fix")
    fix = config.fix
    tree = tree or parse(config.lang.grammar, source)
    ctx = Context(config, source)
    base = compile_template_names(fix.template, config.names)
    raws: list[RawMatch] = []
    templates: dict[tuple[int, int], Template] = {}
    expanded: set[tuple[int, int]] = set()
    for node, raw in find_rule(config, tree, source):
        start = _expand(node, fix.expand_start, False, ctx)
        end = _expand(node, fix.expand_end, True, ctx)
        widened = RawMatch(start, end, raw.bindings)
        if (start, end) != (node.start_byte, node.end_byte):
            expanded.add((start, end))
        values = _transformed(config, raw, source)
        # A variable this match did not bind (another `any` branch) renders as nothing.
        templates[(start, end)] = Template(base.text, tuple(
            (values.get(p.name, "") if p.name in values or p.name not in raw.bindings else p)
            if isinstance(p, Ref) else p for p in base.parts))
        raws.append(widened)
    template_for: Callable[[RawMatch], Template] = lambda r: templates[(r.start, r.end)]  # noqa: E731
    # A range widened by expandStart/expandEnd is exactly what goes: never its whole lines.
    return rewrite_matches(config.lang, raws, template_for, tree, source,
                           lambda r: (r.start, r.end) not in expanded)
