"""Git faults: file names git and the tools spell differently. A changed file whose name is not
UTF-8, or holds a newline, is reviewed like any other: its new finding is reported and fails
the gate (a tool that writes its output in UTF-8 can only show such a name lossily)."""

from __future__ import annotations

import json
import os
from dataclasses import replace

import pytest

from bot.publishing import report
from bot.render import codequality, rdjson
from tests.conftest import GitRepo, require_tool
from tests.faults.harness import reviewbot
from tests.run.test_artifact import small


@pytest.mark.parametrize("name", [os.fsdecode(b"caf\xe9.py"), "new\nline.py", "tab\there.py",
                                  "ünï cødé.py"])
def test_a_new_finding_in_a_file_with_an_odd_name_fails_the_gate(repo: GitRepo,
                                                                  name: str) -> None:
    require_tool("ruff")
    repo.commit({"pyproject.toml": "[tool.ruff.lint]\nselect = ['F']\n", name: "import os\n"})
    repo.branch("feature")
    repo.commit({name: "import os\nimport sys\n"})
    out = reviewbot(["review", "--base", "main", "--format", "json", "--no-cache"],
                    cwd=repo.path)
    assert not out.crashed, out.stderr
    assert out.status == 1, out.stdout + out.stderr
    report = json.loads(out.stdout)
    assert report["summary"]["introduced"] == 1 and report["summary"]["preexisting"] == 1
    (finding,) = [f for f in report["findings"] if f["scope"] == "introduced"]
    assert finding["rule"] == "F401" and finding["path"] == name


def test_every_json_report_of_such_a_name_is_utf8_that_reads_back() -> None:
    name = os.fsdecode(b"caf\xe9.py")
    analysis = small()
    verdict = analysis.result.findings[0]
    moved = replace(verdict, finding=replace(verdict.finding, path=name))
    result = replace(analysis.result, findings=(moved,))
    documents = {"json": report.to_json(result).encode(),
                 "rdjson": rdjson.to_json(result, lambda path: ["import os\n"] * 3).encode(),
                 "codequality": codequality.dumps(result)}
    for kind, data in documents.items():
        read = json.loads(data.decode("utf-8"))  # strict: the bytes are UTF-8
        assert name in strings(read), kind  # and the escapes read back as the name


def strings(value: object) -> set[str]:
    if isinstance(value, dict):
        return set().union(*map(strings, value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*map(strings, value)) if value else set()
    return {value} if isinstance(value, str) else set()
