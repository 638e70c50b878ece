"""Rules: patterns combined with relations, as in ast-grep's rule YAML.

A rule matches a node when every key it has matches there: the atomic ones (`pattern`, `kind`,
`regex`), the relational ones (`inside`, `has`, `follows`, `precedes`, each with `stopBy`
neighbor / end / a rule, and `field`), the composite ones (`all` in order, `any`, `not`,
`matches` a rule of `utils`). Metavariables bound by one key constrain the next; the first
binding wins and nothing backtracks into a relation that already matched (as in ast-grep).
A rule document adds `constraints` (a rule each bound metavariable must match), `transform`
(new variables: `convert` toCase, `replace`, `substring`) and `fix` (a template, or an object
whose `expandStart`/`expandEnd` rules widen the replaced range over neighbouring nodes).

Compiling is pure and raises `BotError` (exit 2) with the path of the offending key; a key of
ast-grep's rule format that we do not implement is refused by name, never ignored, and an
unknown key gets the nearest known one as a suggestion. Matching is `bot.structural.rulematch`,
fixes `bot.structural.rulefix`.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from bot.errors import BotError, Exit
from bot.structural.lang import Lang, get, language
from bot.structural.pattern import NAME, Pattern, compile_pattern
from bot.structural.rewrite import compile_template_names

RULE_KEYS = frozenset({"pattern", "kind", "regex", "inside", "has", "follows", "precedes", "all",
                       "any", "not", "matches"})
RELATION_KEYS = RULE_KEYS | {"stopBy", "field"}
DOC_KEYS = frozenset({"id", "language", "rule", "constraints", "transform", "fix", "utils",
                      "message", "severity", "note", "url"})
PATTERN_KEYS = frozenset({"context", "selector", "strictness"})
FIX_KEYS = frozenset({"template", "expandStart", "expandEnd"})
TRANSFORMS = ("convert", "replace", "substring")
TRANSFORM_KEYS = {"convert": frozenset({"source", "toCase"}),
                  "replace": frozenset({"source", "replace", "by"}),
                  "substring": frozenset({"source", "startChar", "endChar"})}
# Keys of ast-grep's rule format that this engine does not implement, by where they go.
LACKING_DOC = frozenset({"rewriters", "labels", "files", "ignores", "metadata"})
LACKING_RULE = frozenset({"nthChild", "range"})
LACKING_FIX = frozenset({"title"})
LACKING_TRANSFORM = frozenset({"rewrite"})
LACKING_CONVERT = frozenset({"separatedBy"})
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


def fail(where: str, what: str) -> BotError:
    return BotError(f"{where}: {what}", Exit.USAGE)


def only(raw: Mapping[Any, Any], where: str, known: Collection[str],
         lacking: Collection[str] = ()) -> None:
    """Refuse the first key of `raw` outside `known`: by name when ast-grep has it and we do
    not (`lacking`), else as unknown with the nearest known key as a suggestion."""
    for key in raw:
        name = str(key)
        if name in known:
            continue
        if name in lacking:
            at = name if where == "document" else f"{where}.{name}"
            raise fail(at, f"ast-grep's `{name}` is not supported by reviewbot; remove it or "
                           f"express the rule with the supported keys ({', '.join(sorted(known))})")
        near = difflib.get_close_matches(name, sorted({*known, *lacking}), n=1)
        hint = f"; did you mean `{near[0]}`?" if near else ""
        raise fail(where, f"unknown key `{name}`{hint} (known: {', '.join(sorted(known))})")


def text(value: Any, where: str) -> str:
    """A text field's value. Anything else is refused rather than turned into text: YAML reads
    `pattern:` with nothing after it as null, which must not become the pattern `None`."""
    if not isinstance(value, str):
        kind = "nothing (null)" if value is None else type(value).__name__
        raise fail(where, f"expected text, got {kind}")
    return value


def _optional_text(raw: Mapping[Any, Any], key: str, default: str) -> str:
    """A document's optional text field: absent or null is `default`."""
    value = raw.get(key)
    return default if value is None else text(value, key)


def _mapping(raw: Any, where: str) -> Mapping[Any, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise fail(where, "expected a mapping")
    return raw


def _pattern(lang: Lang, value: Any, where: str) -> Pattern:
    try:
        if not isinstance(value, Mapping):
            return compile_pattern(lang, text(value, where))
        only(value, where, PATTERN_KEYS)
        if "context" not in value:
            raise fail(where, "a pattern object needs a `context`")
        selector = value.get("selector")
        return compile_pattern(
            lang, "", context=text(value["context"], f"{where}.context"),
            selector=text(selector, f"{where}.selector") if selector is not None else None,
            strictness=text(value.get("strictness", "smart"), f"{where}.strictness"))
    except BotError as exc:
        if exc.message.startswith(where):
            raise
        raise fail(where, exc.message) from exc


def _kind(lang: Lang, value: Any, where: str) -> str:
    kind = text(value, where)
    grammar = language(lang.grammar)
    if grammar.id_for_node_kind(kind, True) is None and grammar.id_for_node_kind(kind, False) is None:
        raise fail(where, f"{kind!r} is not a node kind of {lang.name}")
    return kind


def compile_rule(lang: Lang, raw: Any, where: str = "rule") -> Rule:
    if not isinstance(raw, Mapping) or not raw:
        raise fail(where, "expected a mapping with at least one of " + ", ".join(sorted(RULE_KEYS)))
    only(raw, where, RULE_KEYS, LACKING_RULE)
    pattern = _pattern(lang, raw["pattern"], f"{where}.pattern") if "pattern" in raw else None
    regex = None
    if "regex" in raw:
        try:
            regex = re.compile(text(raw["regex"], f"{where}.regex"))
        except re.error as exc:
            raise fail(f"{where}.regex", f"not a regular expression: {exc}") from exc

    def relation(key: str) -> Relation | None:
        value = raw.get(key)
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise fail(f"{where}.{key}", "expected a mapping")
        only(value, f"{where}.{key}", RELATION_KEYS, LACKING_RULE)
        inner = {k: v for k, v in value.items() if k not in ("stopBy", "field")}
        stop = value.get("stopBy", "neighbor")
        stop_by: Literal["neighbor", "end"] | Rule = (
            stop if stop in ("neighbor", "end") else compile_rule(lang, stop, f"{where}.{key}.stopBy"))
        return Relation(compile_rule(lang, inner, f"{where}.{key}"), stop_by,
                        text(value["field"], f"{where}.{key}.field") if "field" in value else None)

    def many(key: str) -> tuple[Rule, ...] | None:
        if key not in raw:
            return None
        value = raw[key]
        if not isinstance(value, list) or not value:
            raise fail(f"{where}.{key}", "expected a non-empty list of rules")
        return tuple(compile_rule(lang, v, f"{where}.{key}[{i}]") for i, v in enumerate(value))

    return Rule(pattern, _kind(lang, raw["kind"], f"{where}.kind") if "kind" in raw else None, regex,
                relation("inside"), relation("has"), relation("follows"), relation("precedes"),
                many("all") or (), many("any"),
                compile_rule(lang, raw["not"], f"{where}.not") if "not" in raw else None,
                text(raw["matches"], f"{where}.matches") if "matches" in raw else None)


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
        raise fail(where, f"expected a metavariable like $A, got {text!r}")
    return match.group(1)


def _transform(name: str, raw: Any) -> Transform:
    where = f"transform.{name}"
    if isinstance(raw, str):
        raise fail(where, "the string form of a transform is not supported by reviewbot; write "
                          "it as a mapping, e.g. {replace: {source: $A, replace: 'x', by: 'y'}}")
    if not isinstance(raw, Mapping) or len(raw) != 1:
        raise fail(where, "expected one of convert, replace, substring")
    only(raw, where, TRANSFORMS, LACKING_TRANSFORM)
    (kind, spec), = raw.items()
    if not isinstance(spec, Mapping) or "source" not in spec:
        raise fail(f"{where}.{kind}", "expected a mapping with a source")
    only(spec, f"{where}.{kind}", TRANSFORM_KEYS[kind], LACKING_CONVERT if kind == "convert" else ())
    source = _var(spec["source"], f"{where}.{kind}.source")
    if kind == "convert":
        case = text(spec.get("toCase", ""), f"{where}.convert.toCase")
        if case not in CASES:
            raise fail(f"{where}.convert.toCase", f"{case!r}; use one of {', '.join(CASES)}")
        return Transform(source, "convert", to_case=case)
    if kind == "replace":
        try:
            return Transform(source, "replace",
                             replace=re.compile(text(spec["replace"], f"{where}.replace.replace")),
                             by=text(spec.get("by", ""), f"{where}.replace.by"))
        except (KeyError, re.error) as exc:
            raise fail(f"{where}.replace", f"needs a valid `replace` regex ({exc})") from exc
    bounds = [spec.get("startChar"), spec.get("endChar")]
    for key, value in zip(("startChar", "endChar"), bounds, strict=True):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise fail(f"{where}.substring.{key}", f"expected an integer, got {value!r}")
    return Transform(source, "substring", start=bounds[0], end=bounds[1])


def compile_config(raw: Any, lang: Lang | None = None) -> RuleConfig:
    """A rule document (ast-grep's YAML shape, already loaded) for `lang` or its `language`."""
    if not isinstance(raw, Mapping):
        raise fail("document", "expected a mapping with a `rule`")
    only(raw, "document", DOC_KEYS, LACKING_DOC)
    if "rule" not in raw:
        raise fail("document", "expected a mapping with a `rule`")
    if lang is None:
        if "language" not in raw:
            raise fail("document", "no `language` (or pass --lang)")
        lang = get(text(raw["language"], "language").lower())
    utils = {str(k): compile_rule(lang, v, f"utils.{k}")
             for k, v in _mapping(raw.get("utils"), "utils").items()}
    rule = compile_rule(lang, raw["rule"])
    constraints = {_var("$" + str(k), f"constraints.{k}"): compile_rule(lang, v, f"constraints.{k}")
                   for k, v in _mapping(raw.get("constraints"), "constraints").items()}
    transform = {str(k): _transform(str(k), v)
                 for k, v in _mapping(raw.get("transform"), "transform").items()}
    names = frozenset(_names(rule) | set(transform))
    fix = None
    if "fix" in raw:
        value = raw["fix"]
        if isinstance(value, str):
            fix = Fix(value)
        elif isinstance(value, Mapping) and "template" in value:
            only(value, "fix", FIX_KEYS, LACKING_FIX)
            fix = Fix(text(value["template"], "fix.template"),
                      compile_rule(lang, value["expandStart"], "fix.expandStart")
                      if "expandStart" in value else None,
                      compile_rule(lang, value["expandEnd"], "fix.expandEnd")
                      if "expandEnd" in value else None)
        elif isinstance(value, list):
            raise fail("fix", "a list of fixes is not supported by reviewbot; give one fix")
        else:
            raise fail("fix", "expected a template string or {template, expandStart, expandEnd}")
        try:  # unknown metavariables fail now
            compile_template_names(fix.template, names)
        except BotError as exc:
            raise fail("fix", exc.message) from None
    severity = _optional_text(raw, "severity", "warning").lower()
    if severity not in ("error", "warning", "info", "hint"):
        raise fail("severity", f"{severity!r}; use error, warning, info or hint")
    _optional_text(raw, "note", "")  # shown by ast-grep, not by reviewbot: checked all the same
    return RuleConfig(lang, rule, _optional_text(raw, "id", ""), constraints, transform, fix,
                      utils, names, _optional_text(raw, "message", ""), severity,
                      _optional_text(raw, "url", "") or None)


def load(path: Path) -> RuleConfig:
    """A rule file (ast-grep's rule YAML); BotError (exit 2) saying what is wrong."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BotError(f"cannot read rule file {path}: {exc.strerror or exc}", Exit.USAGE) from exc
    except UnicodeDecodeError as exc:
        raise BotError(f"rule file {path} is not UTF-8 text", Exit.USAGE) from exc
    return load_text(text, str(path))


def load_text(text: str, where: str) -> RuleConfig:
    """A rule document's text; errors name `where`."""
    import yaml  # only when a rule file is used

    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise BotError(f"{where}: not valid YAML: {exc}", Exit.USAGE) from exc
    try:
        return compile_config(raw)
    except BotError as exc:
        raise BotError(f"{where}: {exc.message}", Exit.USAGE) from exc
