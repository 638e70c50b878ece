from __future__ import annotations

import dataclasses
import json

import jsonschema
import pytest

from bot.model import Severity
from bot.render.sarif import FINGERPRINT_KEY, to_sarif
from tests.conftest import ROOT
from tests.forges.builders import change, finding, result, verdict


def test_sarif_shape_and_stable_fingerprints() -> None:
    before = result("c" * 40, [verdict(finding("a.py", 3), "fp-1"),
                               verdict(finding("a.py", 9, rule="E1"), "fp-2", scope="preexisting")],
                    [change("a.py", range(1, 5))])
    after = result("d" * 40, [verdict(finding("a.py", 5), "fp-1")], [change("a.py", range(1, 7))])
    doc = to_sarif(before)
    json.dumps(doc)  # serialisable
    assert doc["version"] == "2.1.0"
    [run] = doc["runs"]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["ruff/F841", "ruff/E1"]
    first, second = run["results"]
    assert first["baselineState"] == "new" and second["baselineState"] == "unchanged"
    assert first["level"] == "error"
    assert first["locations"][0]["physicalLocation"]["region"]["startLine"] == 3
    moved = to_sarif(after)["runs"][0]["results"][0]
    assert moved["locations"][0]["physicalLocation"]["region"]["startLine"] == 5
    assert moved["partialFingerprints"] == first["partialFingerprints"] == {FINGERPRINT_KEY: "fp-1"}


SARIF_SCHEMA = ROOT / "tools" / "node_modules" / "@microsoft" / "jest-sarif" / "lib" / "schemas" \
    / "sarif-2.1.0-rtm.5.json"


def test_sarif_is_valid_against_the_published_schema() -> None:
    """Every shape we write (file-level findings, odd paths, every scope) validates against
    the SARIF 2.1.0 schema (npm @microsoft/jest-sarif, installed by the setup), formats too."""
    if not SARIF_SCHEMA.is_file():
        pytest.fail("the SARIF schema is not installed: run scripts/setup")
    schema = json.loads(SARIF_SCHEMA.read_text())
    file_level = dataclasses.replace(finding("docs/ünï code.py", 1, rule="INP001"), file_level=True,
                                     url=None)
    doc = to_sarif(result("c" * 40, [
        verdict(finding("a.py", 3), "fp-1"),
        verdict(finding("src/my file#1.py", 9, rule="E1", severity=Severity.INFO), "fp-2",
                scope="preexisting"),
        verdict(finding("b.py", 2, severity=Severity.WARNING), "fp-3", scope="changed"),
        verdict(file_level, "fp-4", scope="unclassified"),
    ], [change("a.py", range(1, 5))]))
    # Every known format, "uri-reference" included (a later draft's, which SARIF names).
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]
    assert errors == []
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in doc["runs"][0]["results"]]
    assert "src/my%20file%231.py" in uris and "docs/%C3%BCn%C3%AF%20code.py" in uris
