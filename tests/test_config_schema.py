"""The published JSON Schema of `.reviewbot.yml` (bot/schemas/reviewbot-config.schema.json,
for editors) and the loader (bot/config.py) agree: what one accepts the other accepts, every
typo the loader refuses the schema refuses too."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from bot import config
from bot.errors import BotError
from bot.run.pipeline import registry, tool_names
from tests.test_config import TYPOS

KNOWN = tool_names(registry())
SCHEMA = json.loads(resources.files("bot").joinpath("schemas", "reviewbot-config.schema.json")
                    .read_text("utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def loader_accepts(text: str) -> bool:
    try:
        config.parse(text, ".reviewbot.yml", KNOWN)
    except BotError:
        return False
    return True


def schema_accepts(text: str) -> bool:
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError:
        return False  # no document to check: refused as the loader refuses it
    return VALIDATOR.is_valid(document)


def test_the_schema_is_a_valid_schema_shipped_with_the_package() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["properties"].keys() == set(config.KEYS)
    assert sorted(SCHEMA["properties"]["tools"]["properties"]) == sorted(KNOWN)
    declared = SCHEMA["$defs"]["declared-linter"]["properties"]
    assert declared.keys() == set(config.DECLARED_KEYS)
    assert declared["format"]["enum"] == list(config.FORMATS)
    assert declared["scope"]["enum"] == list(config.SCOPES)
    assert declared["fix"]["enum"] == list(config.FIXES)
    assert SCHEMA["properties"]["fail-level"]["enum"] == list(config.FAIL_LEVELS)
    assert SCHEMA["properties"]["tool-errors"]["enum"] == list(config.TOOL_ERRORS)
    assert SCHEMA["properties"]["commands"]["properties"]["permission"]["enum"] == list(config.PERMISSIONS)
    for section, keys in (("commands", config.COMMAND_KEYS), ("apply", config.APPLY_KEYS),
                          ("sweep", config.SWEEP_KEYS)):
        assert SCHEMA["properties"][section]["properties"].keys() == set(keys)


VALID = [
    "",
    "# nothing but a comment\n",
    "fail-level: warning\ntool-errors: warn\ntimeout: 10\n",
    "timeout: 0.5\n",
    "tools: {ruff: {enabled: false}, rust-analyzer: {}, ast-grep: {enabled: true}}\n",
    "tools:\nrules:\ncommands:\napply:\nsweep:\n",
    "rules:\n  - lint/no-eval.yml\n  - id: no-print\n    language: python\n"
    "    rule: {pattern: print($$$A)}\n",
    "commands: {prefix: '!bot', permission: maintain}\n",
    "commands: {prefix: " + "x" * 20 + "}\n",
    "apply: {label: 'ship it', author: 'Jo Doe <jo@example.com>'}\n",
    "sweep: {label: 'ci: regressions'}\n",
    "sweep: {label: " + "x" * 50 + "}\n",
    "tools: {mine: {command: [lint, '{files}'], files: '*.x', format: sarif, fix: safe}}\n",
    "tools: {mine: {command: [lint], files: '*.x', format: checkstyle, exit-codes: [0, 1, 2]}}\n",
    "tools: {my.lint: {command: [./lint], files: [a, 'b/**'], format: rdjsonl, scope: repo}}\n",
    "tools: {grep: {command: [grep, -n, x], files: ['*'], format: regex,\n"
    "  pattern: '(?P<file>[^:]+):(?P<line>\\d+):(?P<message>.*)', enabled: false}}\n",
]

INVALID = [
    "timeout: true\n", "timeout: '10'\n", "timeout:\n", "fail-level:\n", "tools: [ruff]\n",
    "tools: {ruff: {enabled: 1}}\n", "rules: lint.yml\n", "rules: [{id: ''}]\n", "rules: [{id: 3}]\n",
    "rules: [[a]]\n", "commands: {prefix: ' /'}\n", "commands: {prefix: " + "x" * 21 + "}\n",
    "commands: {prefix: \"/\\n\"}\n", "commands: {permission: admin}\n", "commands: {prefix: 1}\n",
    "commands: /\n", "apply: {author: nobody}\n", "apply: {author: \"A <a@b>\\n\"}\n",
    "apply: {label: ''}\n", "apply: {label: \"a\\nb\"}\n", "apply: {labels: x}\n",
    "sweep: {label: 'a,b'}\n", "sweep: {label: ' a'}\n", "sweep: {label: \"a\\n\"}\n",
    "sweep: {label: " + "x" * 51 + "}\n", "sweep: {label: 3}\n", "sweep: label\n", "swep: {}\n",
    "- fail-level\n", "42\n",
    "tools: {mine: {command: [lint], files: '*.x'}}\n",
    "tools: {mine: {command: [lint], files: [], format: sarif}}\n",
    "tools: {mine: {command: [], files: '*.x', format: sarif}}\n",
    "tools: {mine: {command: ['{files}'], files: '*.x', format: sarif}}\n",
    "tools: {mine: {command: lint, files: '*.x', format: sarif}}\n",
    "tools: {mine: {command: [lint], files: '*.x', format: json}}\n",
    "tools: {mine: {command: [lint], files: '*.x', format: regex}}\n",
    "tools: {mine: {command: [lint], files: '*.x', format: sarif, pattern: x}}\n",
    "tools: {mine: {command: [lint, '{files}'], files: '*.x', format: sarif, scope: repo}}\n",
    "tools: {mine: {command: [lint], files: '*.x', format: sarif, fix: always}}\n",
    "tools: {mine: {command: [lint], files: '*.x', format: sarif, args: [x]}}\n",
    "tools: {ruff: {command: [lint], files: '*.x', format: sarif}}\n",
    "tools: {mine: {command: [lint], files: '*.x', format: sarif, exit-codes: []}}\n",
    "tools: {mine: {command: [lint], files: '*.x', format: sarif, exit-codes: [256]}}\n",
    "tools: {mine: {command: [lint], files: '*.x', format: sarif, exit-codes: [true]}}\n",
    "tools: {my lint: {command: [lint], files: '*.x', format: sarif}}\n",
]


@pytest.mark.parametrize("text", VALID)
def test_valid_documents_pass_both(text: str) -> None:
    assert loader_accepts(text) and schema_accepts(text)


@pytest.mark.parametrize("text", [t for t, _, _ in TYPOS] + INVALID)
def test_invalid_documents_are_refused_by_both(text: str) -> None:
    assert not loader_accepts(text)
    assert not schema_accepts(text)


# Values near every edge the loader checks: the two must agree on any mix of them.
_TEXT = st.sampled_from(["", " ", "x", " x", "x ", "a,b", "a\nb", "x\n", "/", "!", "x" * 20,
                         "x" * 21, "x" * 50, "x" * 51, "write", "maintain", "admin",
                         "Jo <jo@example.com>", "Jo <jo@example.com>\n", "<jo@x>", "Jo <jo>"])
_SCALAR = st.one_of(_TEXT, st.none(), st.booleans(), st.integers(-2, 400),
                    st.sampled_from([0.0, 0.5, -0.5]),
                    st.sampled_from([*config.FAIL_LEVELS, *config.TOOL_ERRORS, "warnign"]))
_SECTION = st.one_of(st.none(), _SCALAR, st.dictionaries(
    st.sampled_from(["prefix", "permission", "label", "author", "lable"]), _SCALAR, max_size=3))
_ARGV = st.one_of(_SCALAR, st.lists(st.one_of(_TEXT, st.just("{files}"), st.integers(0, 1)), max_size=3))
_DECLARED = st.fixed_dictionaries(
    {"command": _ARGV},
    optional={"files": _ARGV, "format": st.sampled_from(["sarif", "rdjson", "regex", "json", ""]),
              "scope": st.sampled_from(["file", "repo", "dir", None]),
              "fix": st.sampled_from(["safe", "none", "display", 1]), "enabled": _SCALAR,
              "exit-codes": st.one_of(_SCALAR, st.lists(st.one_of(st.integers(-1, 256), st.booleans(),
                                                                  _TEXT), max_size=2)),
              "pattern": st.just("(?P<file>.+):(?P<line>\\d+) (?P<message>.*)")})
_TOOLS = st.one_of(st.none(), _SCALAR, st.dictionaries(
    st.sampled_from(["ruff", "eslint", "gopls", "rufff", "my-lint", "x y"]),
    st.one_of(_SCALAR, st.dictionaries(st.sampled_from(["enabled", "enabeld"]), _SCALAR, max_size=2),
              _DECLARED),
    max_size=2))
_RULE = st.one_of(_TEXT, st.integers(0, 1), st.dictionaries(
    st.sampled_from(["id", "idd", "language"]), _SCALAR, max_size=2))
_DOCUMENT = st.dictionaries(st.sampled_from([*config.KEYS, "fail-levle"]), st.one_of(
    _SCALAR, _SECTION, _TOOLS, st.lists(_RULE, max_size=2)), max_size=4)


@settings(max_examples=400, deadline=None)
@given(_DOCUMENT)
def test_the_loader_and_the_schema_agree_on_any_document(document: dict[str, Any]) -> None:
    text = yaml.safe_dump(document)
    assert loader_accepts(text) == schema_accepts(text), text
