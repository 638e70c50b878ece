"""Hostile settings: `.reviewbot.yml` documents drawn from its JSON Schema, then one field
removed or given a value of another type. The loader reads each or refuses it with exit 2 and a
message that points at the field (line, column, and its name); it agrees with the schema on
which to refuse; nothing else (no traceback)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot import config
from bot.errors import BotError, Exit
from tests.faults.mutate import Mutation, mutations, named
from tests.faults.schema_strategy import documents
from tests.test_config_schema import KNOWN, SCHEMA, VALIDATOR, loader_accepts, schema_accepts

SOURCE = ".reviewbot.yml"
DOCUMENTS = documents(SCHEMA)


@st.composite
def mutated(draw: st.DrawFn) -> tuple[dict[str, Any], Mutation | None]:
    document = draw(DOCUMENTS.filter(lambda d: isinstance(d, dict) and d
                                              and VALIDATOR.is_valid(d)))
    every = list(mutations(document, items=2))
    return document, draw(st.sampled_from(every)) if every else None


def read(text: str) -> BotError | None:
    try:
        config.parse(text, SOURCE, KNOWN)
    except BotError as exc:
        return exc
    return None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCUMENTS)
def test_documents_drawn_from_the_schema_are_read_as_the_schema_says(document: Any) -> None:
    text = yaml.safe_dump(document)
    assert loader_accepts(text) == schema_accepts(text), text


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_a_field_removed_or_mistyped_is_refused_naming_it(
        case: tuple[dict[str, Any], Mutation | None]) -> None:
    _, mutation = case
    if mutation is None:
        return
    text = yaml.safe_dump(mutation.document)
    error = read(text)
    assert (error is None) == schema_accepts(text), f"{mutation}\n{text}"
    if error is not None:
        assert error.code == Exit.USAGE
        assert error.message.startswith(f"{SOURCE}:") and "\n" not in error.message
        assert named(error.message, mutation.path, "{}".format) or _at_key(error, mutation), (
            f"{mutation}: {error.message}")


def _at_key(error: BotError, mutation: Mutation) -> bool:
    """A refusal of a key (unknown, or a required one missing) names that key alone."""
    keys = [p for p in mutation.path if isinstance(p, str)]
    return any(repr(k) in error.message or f" {k} " in error.message for k in keys)


@pytest.mark.parametrize("first", ["null", "1", "''", "[a]"])
def test_the_first_argument_of_a_declared_command_is_checked_by_both(first: str) -> None:
    # Found by the test above: in JSON Schema 2020-12 `prefixItems` replaces `items` for the
    # first argument, which the schema then let be anything.
    text = f"tools: {{mine: {{command: [{first}, --json], files: '*.x', format: sarif}}}}\n"
    assert not schema_accepts(text)
    assert read(text) is not None
