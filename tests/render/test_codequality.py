from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from bot.model import Severity
from bot.render.codequality import dumps, to_code_quality
from tests.forges.builders import change, finding, result, verdict

SCHEMA = json.loads((Path(__file__).parent.parent / "forges" / "codequality.schema.json").read_text())


def test_the_report_is_what_the_change_made_worse_with_stable_fingerprints() -> None:
    before = result("c" * 40, [
        verdict(finding("a.py", 3), "fp-1"),
        verdict(finding("a.py", 9, rule="E1", severity=Severity.WARNING), "fp-2", scope="changed"),
        verdict(finding("a.py", 12, rule="E2"), "fp-3", scope="preexisting"),
        verdict(finding("dir/ü b.py", 1, rule="I1", severity=Severity.INFO, message=""), "fp-4"),
    ], [change("a.py", range(1, 5))])
    report = to_code_quality(before)
    jsonschema.validate(report, SCHEMA)
    assert [(i["check_name"], i["severity"], i["location"]["lines"]["begin"]) for i in report] == [
        ("ruff/F841", "major", 3), ("ruff/E1", "minor", 9), ("ruff/I1", "info", 1)]
    assert report[0]["description"] == "ruff/F841: unused variable"
    assert report[2]["location"]["path"] == "dir/ü b.py"
    moved = to_code_quality(result("d" * 40, [verdict(finding("a.py", 5), "fp-1")], []))
    assert moved[0]["fingerprint"] == report[0]["fingerprint"]
    assert len({i["fingerprint"] for i in report}) == 3
    data = dumps(before)
    assert not data.startswith(b"\xef\xbb\xbf") and json.loads(data) == report  # no BOM


def test_the_schema_refuses_what_gitlab_refuses() -> None:
    good = {"description": "d", "check_name": "c", "fingerprint": "f", "severity": "major",
            "location": {"path": "a.py", "lines": {"begin": 1}}}
    jsonschema.validate([good], SCHEMA)
    for bad in ({**good, "severity": "error"}, {**good, "location": {"path": "a.py"}},
                {k: v for k, v in good.items() if k != "fingerprint"}):
        try:
            jsonschema.validate([bad], SCHEMA)
        except jsonschema.ValidationError:
            continue
        raise AssertionError(f"accepted {bad}")
