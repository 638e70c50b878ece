"""The ordered enums of the model: their predicates, and their strings as the wire format."""

from __future__ import annotations

import json

from bot import codec
from bot.model import (
    Applicability,
    FailLevel,
    Finding,
    Fix,
    GatePolicy,
    Scope,
    Severity,
    Span,
    Verdict,
)


def test_scope_predicates() -> None:
    assert [s for s in Scope if s.commented] == [Scope.INTRODUCED, Scope.CHANGED]
    assert [s for s in Scope if s.fixable] == [Scope.INTRODUCED, Scope.CHANGED]
    assert [s for s in Scope if s.shown] == [Scope.INTRODUCED, Scope.CHANGED, Scope.UNCLASSIFIED]
    assert [s.value for s in Scope] == ["introduced", "changed", "preexisting", "fixed", "unclassified"]


def test_applicability_is_ordered_by_trust() -> None:
    assert [a for a in Applicability if a.applies(Applicability.SAFE)] == [Applicability.SAFE]
    assert [a for a in Applicability if a.applies(Applicability.UNSAFE)] == \
        [Applicability.SAFE, Applicability.UNSAFE]
    assert all(a.applies(Applicability.DISPLAY) for a in Applicability)


def test_fail_level_gates_severities_at_or_above_it() -> None:
    gated = {level: [s for s in Severity if level.gates(s)] for level in FailLevel}
    assert gated == {FailLevel.NONE: [], FailLevel.INFO: list(Severity),
                     FailLevel.WARNING: [Severity.WARNING, Severity.ERROR],
                     FailLevel.ERROR: [Severity.ERROR]}


def test_the_members_are_their_strings_on_the_wire() -> None:
    finding = Finding("t", "r", Severity.ERROR, "m", "a.py", Span(1, 1, 1, 2),
                      fix=Fix("d", (), Applicability.UNSAFE))
    verdict = Verdict(finding, Scope.CHANGED, "fp")
    encoded = json.loads(json.dumps(codec.encode_verdict(verdict)))
    assert (encoded["scope"], encoded["fix"]["applicability"]) == ("changed", "unsafe")
    assert json.dumps(codec.encode_policy(GatePolicy(FailLevel.WARNING))) == \
        '{"fail_level": "warning", "tool_errors": "fail"}'
    decoded = codec.decode_verdict(encoded)
    assert decoded == verdict and decoded.scope is Scope.CHANGED
    assert decoded.finding.fix is not None and decoded.finding.fix.applicability is Applicability.UNSAFE


def test_a_value_given_as_its_string_is_the_member() -> None:
    finding = Finding("t", "r", Severity.ERROR, "m", "a.py", Span(1, 1, 1, 2))
    verdict = Verdict(finding, "introduced", "fp")  # type: ignore[arg-type]
    assert verdict.scope is Scope.INTRODUCED and verdict.scope.commented
    assert Fix("d", (), "display").applicability is Applicability.DISPLAY  # type: ignore[arg-type]
    assert GatePolicy("none").fail_level is FailLevel.NONE  # type: ignore[arg-type]


def test_the_command_line_s_choices_go_on_top_of_the_configured_policy() -> None:
    configured = GatePolicy("warning", "warn")
    assert configured.chosen(None, None) == configured
    assert configured.chosen("none", "fail") == GatePolicy(FailLevel.NONE, "fail")
    assert configured.chosen(None, "warn").fail_level is FailLevel.WARNING
