from __future__ import annotations

import json

from bot.render.sarif import FINGERPRINT_KEY, to_sarif
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
