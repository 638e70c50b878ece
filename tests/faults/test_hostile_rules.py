"""Hostile structural rules and patterns: a rule document using every key reviewbot reads,
with each field removed or given a value of another type, and patterns (the conformance
suite's, and code of each language) cut, spliced and sprinkled with metavariables. A rule
compiles or is refused with exit 2 naming the field; a text field given anything but text is
refused (YAML's `pattern:` with nothing after it is null, not the pattern `None`); a pattern
compiles, or is refused with exit 2, and a compiled one searches without error."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.errors import BotError, Exit
from bot.structural.lang import get
from bot.structural.pattern import compile_pattern
from bot.structural.rules import compile_config
from bot.structural.search import search_source
from tests.faults.mutate import REMOVED, mutations, named
from tests.structural.conftest import load_cases

RULE: dict[str, Any] = {
    "id": "log-not-print", "language": "python", "severity": "error", "message": "use log: $A",
    "url": "https://example.com/r", "note": "what to do instead",
    "rule": {"all": [
        {"pattern": "print($A, $$$REST)"},
        {"inside": {"kind": "function_definition", "stopBy": "end"}},
        {"not": {"has": {"regex": "^secret", "stopBy": "neighbor", "field": "arguments"}}},
        {"any": [{"matches": "is-call"},
                 {"follows": {"pattern": {"context": "x = 1", "selector": "assignment",
                                          "strictness": "ast"},
                              "stopBy": {"kind": "expression_statement"}}}]}]},
    "utils": {"is-call": {"kind": "call"}},
    "constraints": {"A": {"regex": "^[a-z]"}},
    "transform": {"LOWER": {"convert": {"source": "$A", "toCase": "lowerCase"}},
                  "SUB": {"substring": {"source": "$A", "startChar": 1, "endChar": -1}},
                  "REP": {"replace": {"source": "$A", "replace": "a", "by": "b"}}},
    "fix": {"template": "log($LOWER, $$$REST)", "expandEnd": {"regex": ","}},
}
# Keys whose value is text in ast-grep's rule format (its reader refuses anything else; null
# is "absent" for the document's own optional keys).
TEXT = frozenset({"id", "language", "severity", "message", "url", "note", "pattern", "kind",
                  "regex", "matches", "field", "context", "selector", "strictness", "template",
                  "source", "toCase", "replace", "by"})
OBJECTS = frozenset({"pattern", "fix", "stopBy"})  # text, or a mapping of their own


def test_every_field_of_a_rule() -> None:
    compile_config(RULE)
    tried, broken = 0, []
    for m in mutations(RULE):
        tried += 1
        key = m.path[-1]
        must_refuse = (isinstance(key, str) and key in TEXT and not isinstance(m.value, str)
                       and m.value is not REMOVED and not (m.value is None and len(m.path) == 1)
                       and not (key in OBJECTS and isinstance(m.value, dict)))
        try:
            compile_config(m.document)
        except BotError as exc:
            # The field changed, or the one its change breaks (a fix naming what is unbound).
            if exc.code != Exit.USAGE or not (named(exc.message, m.path, "{}".format)
                                              or exc.message.startswith("fix: ")):
                broken.append(f"{m}: {exc.message}")
            continue
        except Exception as exc:  # any other exception is the bug sought
            broken.append(f"{m}: {type(exc).__name__}: {exc}")
            continue
        if must_refuse:
            broken.append(f"{m}: accepted")
    assert broken == [], "\n".join(broken[:30])
    assert tried > 400


CASES = [c for c in load_cases("structural.jsonl")
         if isinstance(c.get("rule", {}).get("pattern"), str)]
# What a hand (or a template engine) gets wrong in a pattern: metavariables, brackets, quotes,
# escapes, control characters, the languages' expando characters.
NOISE = ["$", "$$", "$$$", "$A", "$$$A", "$_", "$1", "${A}", "(", ")", "{", "}", "[", "]", "'", '"',
         "`", "\\", "\n", "\t", "\r\n", "\x00", "µ", "=>", ";", ",", " ", "/*", "*/", "#", "é"]


@st.composite
def hostile_patterns(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    case = draw(st.sampled_from(CASES))
    text: str = case["rule"]["pattern"]
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, len(text)))
        text = draw(st.sampled_from([
            text[:i] + draw(st.sampled_from(NOISE)) + text[j:],  # replace a slice
            text[:i] + text[j:],  # cut a slice
            text[:j] + text[i:j] + text[j:],  # repeat a slice
            text[j:] + text[:i],  # swap the ends
        ]))
    return case, text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_patterns())
def test_a_mangled_pattern_compiles_and_searches_or_is_refused(
        drawn: tuple[dict[str, Any], str]) -> None:
    case, text = drawn
    lang = get(case["lang"])
    try:
        pattern = compile_pattern(lang, text)
    except BotError as exc:
        assert exc.code == Exit.USAGE and exc.message, json.dumps(text)
        return
    search_source(pattern, case["source"].encode())
    assert pattern.text == text
