"""Rules: patterns combined with relations, as in ast-grep's rule YAML.

A rule matches a node when every key it has matches there: the atomic ones (`pattern`, `kind`,
`regex`), the relational ones (`inside`, `has`, `follows`, `precedes`, each with `stopBy`
neighbor / end / a rule, and `field`), the composite ones (`all` in order, `any`, `not`,
`matches` a rule of `utils`). Metavariables bound by one key constrain the next; the first
binding wins and nothing backtracks into a relation that already matched (as in ast-grep).
A rule document adds `constraints` (a rule each bound metavariable must match), `transform`
(new variables: `convert` toCase, `replace`, `substring`) and `fix` (a template, or an object
whose `expandStart`/`expandEnd` rules widen the replaced range over neighbouring nodes).

Compiling is pure and raises `BotError` (exit 2) with the path of the offending key; matching
is `bot.structural.rulematch`, fixes `bot.structural.rulefix`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from bot.errors import BotError, Exit
from bot.structural.lang import Lang, get
from bot.structural.pattern import NAME, Pattern, compile_pattern
from bot.structural.rewrite import compile_template_names

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


def fail(where: str, what: str) -> BotError:
    return BotError(f"{where}: {what}", Exit.USAGE)


def compile_rule(lang: Lang, raw: Any, where: str = "rule") -> Rule:
    if not isinstance(raw, Mapping) or not raw:
        raise fail(where, "expected a mapping with at least one of " + ", ".join(sorted(RULE_KEYS)))
    unknown = set(raw) - RULE_KEYS
    if unknown:
        raise fail(where, f"unknown key(s) {sorted(unknown)}; known: {', '.join(sorted(RULE_KEYS))}")
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
            raise fail(f"{where}.pattern", exc.message) from exc
    regex = None
    if "regex" in raw:
        try:
            regex = re.compile(str(raw["regex"]))
        except re.error as exc:
            raise fail(f"{where}.regex", f"not a regular expression: {exc}") from exc

    def relation(key: str) -> Relation | None:
        value = raw.get(key)
        if value is None:
            return None
        if not isinstance(value, Mapping):
            raise fail(f"{where}.{key}", "expected a mapping")
        bad = set(value) - RELATION_KEYS
        if bad:
            raise fail(f"{where}.{key}", f"unknown key(s) {sorted(bad)}")
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
            raise fail(f"{where}.{key}", "expected a non-empty list of rules")
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
        raise fail(where, f"expected a metavariable like $A, got {text!r}")
    return match.group(1)


def _transform(name: str, raw: Any) -> Transform:
    where = f"transform.{name}"
    if not isinstance(raw, Mapping) or len(raw) != 1:
        raise fail(where, "expected one of convert, replace, substring")
    (kind, spec), = raw.items()
    if not isinstance(spec, Mapping) or "source" not in spec:
        raise fail(f"{where}.{kind}", "expected a mapping with a source")
    source = _var(spec["source"], f"{where}.{kind}.source")
    if kind == "convert":
        case = str(spec.get("toCase", ""))
        if case not in CASES:
            raise fail(f"{where}.convert.toCase", f"{case!r}; use one of {', '.join(CASES)}")
        return Transform(source, "convert", to_case=case)
    if kind == "replace":
        try:
            return Transform(source, "replace", replace=re.compile(str(spec["replace"])),
                             by=str(spec.get("by", "")))
        except (KeyError, re.error) as exc:
            raise fail(f"{where}.replace", f"needs a valid `replace` regex ({exc})") from exc
    if kind == "substring":
        return Transform(source, "substring", start=spec.get("startChar"), end=spec.get("endChar"))
    raise fail(where, f"unknown transform {kind!r}")


def compile_config(raw: Any, lang: Lang | None = None) -> RuleConfig:
    """A rule document (ast-grep's YAML shape, already loaded) for `lang` or its `language`."""
    if not isinstance(raw, Mapping) or "rule" not in raw:
        raise fail("document", "expected a mapping with a `rule`")
    unknown = set(raw) - DOC_KEYS
    if unknown:
        raise fail("document", f"unknown key(s) {sorted(unknown)}")
    if lang is None:
        if "language" not in raw:
            raise fail("document", "no `language` (or pass --lang)")
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
            raise fail("fix", "expected a template string or {template, expandStart, expandEnd}")
        compile_template_names(fix.template, names)  # unknown metavariables fail now
    severity = str(raw.get("severity", "warning")).lower()
    if severity not in ("error", "warning", "info", "hint"):
        raise fail("severity", f"{severity!r}; use error, warning, info or hint")
    return RuleConfig(lang, rule, str(raw.get("id", "")), constraints, transform, fix, utils, names,
                      str(raw.get("message", "")), severity,
                      str(raw["url"]) if raw.get("url") else None)


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
