"""Rules: patterns combined with relations, as in ast-grep's rule YAML.

A rule matches a node when every key it has matches there: the atomic ones (`pattern`, `kind`,
`regex`), the relational ones (`inside`, `has`, `follows`, `precedes`, each with `stopBy`
neighbor / end / a rule, and `field`), the composite ones (`all` in order, `any`, `not`,
`matches` a rule of `utils`). Metavariables bound by one key constrain the next; the first
binding wins and nothing backtracks into a relation that already matched (as in ast-grep).
A rule document adds `constraints` (a rule each bound metavariable must match), `transform`
(new variables: `convert` toCase, `replace`, `substring`) and `fix` (a template, or an object
whose `expandStart`/`expandEnd` rules widen the replaced range over neighbouring nodes).

Compiling is pure and raises `BotError` (exit 2) with the path of the offending key.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import tree_sitter as ts

from bot.errors import BotError, Exit
from bot.structural.lang import Lang, get, parse
from bot.structural.match import Env, Matcher, RawMatch, raw_match
from bot.structural.pattern import NAME, Pattern, compile_pattern
from bot.structural.rewrite import FileRewrite, Ref, Template, compile_template_names, rewrite_matches

RULE_KEYS = frozenset({"pattern", "kind", "regex", "inside", "has", "follows", "precedes", "all",
                       "any", "not", "matches"})
RELATION_KEYS = RULE_KEYS | {"stopBy", "field"}
DOC_KEYS = frozenset({"id", "language", "rule", "constraints", "transform", "fix", "utils",
                      "message", "severity", "note", "url"})
CASES = ("lowerCase", "upperCase", "capitalize", "camelCase", "snakeCase", "kebabCase", "pascalCase")


@dataclass(frozen=True)
class Relation:
    rule: Rule
    stop_by: Literal["neighbor", "end"] | Rule = "neighbor"
    field: str | None = None


@dataclass(frozen=True)
class Rule:
    pattern: Pattern | None = None
    kind: str | None = None
    regex: re.Pattern[str] | None = None
    inside: Relation | None = None
    has: Relation | None = None
    follows: Relation | None = None
    precedes: Relation | None = None
    all: tuple[Rule, ...] = ()
    any: tuple[Rule, ...] | None = None
    not_: Rule | None = None
    matches: str | None = None


@dataclass(frozen=True)
class Transform:
    source: str  # metavariable name
    kind: Literal["convert", "replace", "substring"]
    to_case: str = ""
    replace: re.Pattern[str] | None = None
    by: str = ""
    start: int | None = None
    end: int | None = None


@dataclass(frozen=True)
class Fix:
    template: str
    expand_start: Rule | None = None
    expand_end: Rule | None = None


@dataclass(frozen=True)
class RuleConfig:
    lang: Lang
    rule: Rule
    id: str = ""
    constraints: Mapping[str, Rule] = field(default_factory=dict)
    transform: Mapping[str, Transform] = field(default_factory=dict)
    fix: Fix | None = None
    utils: Mapping[str, Rule] = field(default_factory=dict)
    names: frozenset[str] = frozenset()  # metavariables a fix may use
    message: str = ""  # for findings; $A is replaced by what A bound
    severity: str = "warning"  # error | warning | info (hint)
    url: str | None = None


# -- compiling (pure) ------------------------------------------------------------------------


def _fail(where: str, what: str) -> BotError:
    return BotError(f"{where}: {what}", Exit.USAGE)


def compile_rule(lang: Lang, raw: Any, where: str = "rule") -> Rule:
    if not isinstance(raw, Mapping) or not raw:
        raise _fail(where, "expected a mapping with at least one of " + ", ".join(sorted(RULE_KEYS)))
    unknown = set(raw) - RULE_KEYS
    if unknown:
        raise _fail(where, f"unknown key(s) {sorted(unknown)}; known: {', '.join(sorted(RULE_KEYS))}")
    pattern = None
    if "pattern" in raw:
        value = raw["pattern"]
        try:
            if isinstance(value, Mapping):
                pattern = compile_pattern(lang, "", context=str(value.get("context", "")),
                                          selector=value.get("selector"),
                                          strictness=str(value.get("strictness", "smart")))
            else:
                pattern = compile_pattern(lang, str(value))
        except BotError as exc:
            raise _fail(f"{where}.pattern", exc.message) from exc
        if pattern.is_sequence:
            raise _fail(f"{where}.pattern", "a sequence of statements cannot be a rule's pattern")
    regex = None
    if "regex" in raw:
        try:
            regex = re.compile(str(raw["regex"]))
        except re.error as exc:
            raise _fail(f"{where}.regex", f"not a regular expression: {exc}") from exc

    def relation(key: str) -> Relation | None:
        value = raw.get(key)
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise _fail(f"{where}.{key}", "expected a mapping")
        bad = set(value) - RELATION_KEYS
        if bad:
            raise _fail(f"{where}.{key}", f"unknown key(s) {sorted(bad)}")
        inner = {k: v for k, v in value.items() if k not in ("stopBy", "field")}
        stop = value.get("stopBy", "neighbor")
        stop_by: Literal["neighbor", "end"] | Rule = (
            stop if stop in ("neighbor", "end") else compile_rule(lang, stop, f"{where}.{key}.stopBy"))
        return Relation(compile_rule(lang, inner, f"{where}.{key}"), stop_by,
                        str(value["field"]) if "field" in value else None)

    def many(key: str) -> tuple[Rule, ...] | None:
        if key not in raw:
            return None
        value = raw[key]
        if not isinstance(value, list) or not value:
            raise _fail(f"{where}.{key}", "expected a non-empty list of rules")
        return tuple(compile_rule(lang, v, f"{where}.{key}[{i}]") for i, v in enumerate(value))

    return Rule(pattern, str(raw["kind"]) if "kind" in raw else None, regex,
                relation("inside"), relation("has"), relation("follows"), relation("precedes"),
                many("all") or (), many("any"),
                compile_rule(lang, raw["not"], f"{where}.not") if "not" in raw else None,
                str(raw["matches"]) if "matches" in raw else None)


def _names(rule: Rule | None) -> set[str]:
    if rule is None:
        return set()
    out = set(rule.pattern.names) if rule.pattern else set()
    for rel in (rule.inside, rule.has, rule.follows, rule.precedes):
        if rel is not None:
            out |= _names(rel.rule)
    for sub in (*rule.all, *(rule.any or ())):
        out |= _names(sub)
    return out


def _var(text: Any, where: str) -> str:
    match = re.fullmatch(rf"\$({NAME})", str(text))
    if not match:
        raise _fail(where, f"expected a metavariable like $A, got {text!r}")
    return match.group(1)


def _transform(name: str, raw: Any) -> Transform:
    where = f"transform.{name}"
    if not isinstance(raw, Mapping) or len(raw) != 1:
        raise _fail(where, "expected one of convert, replace, substring")
    (kind, spec), = raw.items()
    if not isinstance(spec, Mapping) or "source" not in spec:
        raise _fail(f"{where}.{kind}", "expected a mapping with a source")
    source = _var(spec["source"], f"{where}.{kind}.source")
    if kind == "convert":
        case = str(spec.get("toCase", ""))
        if case not in CASES:
            raise _fail(f"{where}.convert.toCase", f"{case!r}; use one of {', '.join(CASES)}")
        return Transform(source, "convert", to_case=case)
    if kind == "replace":
        try:
            return Transform(source, "replace", replace=re.compile(str(spec["replace"])),
                             by=str(spec.get("by", "")))
        except (KeyError, re.error) as exc:
            raise _fail(f"{where}.replace", f"needs a valid `replace` regex ({exc})") from exc
    if kind == "substring":
        return Transform(source, "substring", start=spec.get("startChar"), end=spec.get("endChar"))
    raise _fail(where, f"unknown transform {kind!r}")


def compile_config(raw: Any, lang: Lang | None = None) -> RuleConfig:
    """A rule document (ast-grep's YAML shape, already loaded) for `lang` or its `language`."""
    if not isinstance(raw, Mapping) or "rule" not in raw:
        raise _fail("document", "expected a mapping with a `rule`")
    unknown = set(raw) - DOC_KEYS
    if unknown:
        raise _fail("document", f"unknown key(s) {sorted(unknown)}")
    if lang is None:
        if "language" not in raw:
            raise _fail("document", "no `language` (or pass --lang)")
        lang = get(str(raw["language"]).lower())
    utils = {str(k): compile_rule(lang, v, f"utils.{k}") for k, v in (raw.get("utils") or {}).items()}
    rule = compile_rule(lang, raw["rule"])
    constraints = {_var("$" + str(k), f"constraints.{k}"): compile_rule(lang, v, f"constraints.{k}")
                   for k, v in (raw.get("constraints") or {}).items()}
    transform = {str(k): _transform(str(k), v) for k, v in (raw.get("transform") or {}).items()}
    names = frozenset(_names(rule) | set(transform))
    fix = None
    if "fix" in raw:
        value = raw["fix"]
        if isinstance(value, str):
            fix = Fix(value)
        elif isinstance(value, Mapping) and "template" in value:
            fix = Fix(str(value["template"]),
                      compile_rule(lang, value["expandStart"], "fix.expandStart")
                      if "expandStart" in value else None,
                      compile_rule(lang, value["expandEnd"], "fix.expandEnd")
                      if "expandEnd" in value else None)
        else:
            raise _fail("fix", "expected a template string or {template, expandStart, expandEnd}")
        compile_template_names(fix.template, names)  # unknown metavariables fail now
    severity = str(raw.get("severity", "warning")).lower()
    if severity not in ("error", "warning", "info", "hint"):
        raise _fail("severity", f"{severity!r}; use error, warning, info or hint")
    return RuleConfig(lang, rule, str(raw.get("id", "")), constraints, transform, fix, utils, names,
                      str(raw.get("message", "")), severity,
                      str(raw["url"]) if raw.get("url") else None)


# -- matching (pure over a parsed tree) ------------------------------------------------------


@dataclass
class _Context:
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


def _candidates(rel: Relation, key: str, node: ts.Node, ctx: _Context, env: Env) -> Iterator[ts.Node]:
    """`_nearby` cut by `stopBy`: the nearest only (neighbor; for `has`, the children), all
    (end), or up to and including the first node the stop rule matches."""
    for candidate in _nearby(rel, key, node):
        yield candidate
        if rel.stop_by == "neighbor" and key != "has":
            return
        if isinstance(rel.stop_by, Rule) and _match(rel.stop_by, candidate, env, ctx) is not None:
            return


def _relate(rel: Relation, key: str, node: ts.Node, env: Env, ctx: _Context) -> Env | None:
    for candidate in _candidates(rel, key, node, ctx, env):
        got = _match(rel.rule, candidate, env, ctx)
        if got is not None:
            return got  # the first that matches binds; no backtracking
    return None


def _match(rule: Rule, node: ts.Node, env: Env, ctx: _Context) -> Env | None:
    if rule.kind is not None and node.type != rule.kind:
        return None
    if rule.pattern is not None:
        got = ctx.matcher(rule.pattern).node(rule.pattern.nodes[0], node, env)
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
        got = _match(sub, node, env, ctx)
        if got is None:
            return None
        env = got
    if rule.any is not None:
        got = next((g for sub in rule.any if (g := _match(sub, node, env, ctx)) is not None), None)
        if got is None:
            return None
        env = got
    if rule.not_ is not None and _match(rule.not_, node, env, ctx) is not None:
        return None
    if rule.matches is not None:
        return _match(_util(ctx, rule.matches), node, env, ctx)
    return env


def _util(ctx: _Context, name: str) -> Rule:
    util = ctx.config.utils.get(name)
    if util is None:
        raise _fail("matches", f"no util named {name!r}")
    return util


def _constrained(env: Env, ctx: _Context) -> bool:
    for name, rule in ctx.config.constraints.items():
        value = env.get(name)
        if value is None:
            continue
        if isinstance(value, tuple):
            if not all(_match(rule, n, {}, ctx) is not None for n in value):
                return False
        elif _match(rule, value, {}, ctx) is None:
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
    ctx = _Context(config, source)
    for node in _walk(tree.root_node):
        env = _match(config.rule, node, {}, ctx)
        if env is not None and _constrained(env, ctx):
            yield node, raw_match(node.start_byte, node.end_byte, env)


def search_rule(config: RuleConfig, source: bytes) -> list[RawMatch]:
    return [raw for _, raw in find_rule(config, parse(config.lang.grammar, source), source)]


# -- fixes -----------------------------------------------------------------------------------


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


def _expand(node: ts.Node, rule: Rule | None, forward: bool, ctx: _Context) -> int:
    """The fix range's edge, widened over neighbouring nodes (tokens too) the rule matches."""
    edge = node.end_byte if forward else node.start_byte
    if rule is None:
        return edge
    current = node.next_sibling if forward else node.prev_sibling
    while current is not None and _match(rule, current, {}, ctx) is not None:
        edge = current.end_byte if forward else current.start_byte
        current = current.next_sibling if forward else current.prev_sibling
    return edge


def rewrite_rule(config: RuleConfig, source: bytes, tree: ts.Tree | None = None) -> FileRewrite:
    """Apply the rule's fix to every outermost match (see `rewrite.rewrite_matches`)."""
    if config.fix is None:
        raise _fail("fix", "this rule has no fix")
    fix = config.fix
    tree = tree or parse(config.lang.grammar, source)
    ctx = _Context(config, source)
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


def load(path: Path) -> RuleConfig:
    """A rule file (ast-grep's rule YAML); BotError (exit 2) saying what is wrong."""
    import yaml  # only when a rule file is used

    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise BotError(f"cannot read rule file {path}: {exc.strerror or exc}", Exit.USAGE) from exc
    except yaml.YAMLError as exc:
        raise BotError(f"{path}: not valid YAML: {exc}", Exit.USAGE) from exc
    try:
        return compile_config(raw)
    except BotError as exc:
        raise BotError(f"{path}: {exc.message}", Exit.USAGE) from exc
