"""`review --format rdjson`: reviewdog's DiagnosticResult, checked against a JSON Schema
written from reviewdog's proto/rdf/reviewdog.proto and handed to the real reviewdog."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import jsonschema
import pytest

from bot.cli import main
from tests.conftest import GitRepo, require_tool

_POSITION = {"type": "object", "additionalProperties": False,
             "properties": {"line": {"type": "integer", "minimum": 1},
                            "column": {"type": "integer", "minimum": 1}}}
_RANGE = {"type": "object", "additionalProperties": False, "required": ["start"],
          "properties": {"start": _POSITION, "end": _POSITION}}
_SEVERITY = {"enum": ["UNKNOWN_SEVERITY", "ERROR", "WARNING", "INFO", 0, 1, 2, 3]}
_SOURCE = {"type": "object", "additionalProperties": False, "required": ["name"],
           "properties": {"name": {"type": "string"}, "url": {"type": "string"}}}
_LOCATION = {"type": "object", "additionalProperties": False, "required": ["path"],
             "properties": {"path": {"type": "string", "minLength": 1}, "range": _RANGE}}
# Diagnostic and DiagnosticResult, field for field (the proto's JSON names).
DIAGNOSTIC = {
    "type": "object", "additionalProperties": False, "required": ["message", "location"],
    "properties": {
        "message": {"type": "string"}, "location": _LOCATION, "severity": _SEVERITY,
        "source": _SOURCE,
        "code": {"type": "object", "additionalProperties": False,
                 "properties": {"value": {"type": "string"}, "url": {"type": "string"}}},
        "suggestions": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["range"],
            "properties": {"range": _RANGE, "text": {"type": "string"}}}},
        "original_output": {"type": "string"},
        "related_locations": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["location"],
            "properties": {"message": {"type": "string"}, "location": _LOCATION}}},
    },
}
RESULT = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
          "additionalProperties": False,
          "properties": {"diagnostics": {"type": "array", "items": DIAGNOSTIC},
                         "source": _SOURCE, "severity": _SEVERITY}}

CONFIG = """tools:
  imports:
    command: [ruff, check, --no-cache, --select, "F401,F811", --exit-zero, --output-format, sarif,
              "{files}"]
    files: ["*.py"]
    format: sarif
"""


@pytest.fixture
def changed(repo: GitRepo) -> GitRepo:
    repo.commit({".reviewbot.yml": CONFIG, "a.py": "import os\n"})
    repo.branch("feat")
    repo.commit({"a.py": 'import os\ns = "é😀"; import sys\n'})
    return repo


def rdjson(repo: GitRepo, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    assert main(["review", "--repo", str(repo.path), "--base", "main", "--format", "rdjson",
                 *extra]) == 1
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    jsonschema.Draft202012Validator(RESULT).validate(document)
    return document


def test_introduced_only_by_default_with_byte_columns_and_suggestions(
        changed: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    document = rdjson(changed, capsys)
    assert document["source"] == {"name": "reviewbot"}
    [diagnostic] = document["diagnostics"]
    # `sys` starts at code point 18 of `s = "é😀"; import sys`: byte 22 (é is 2, 😀 4 bytes).
    assert diagnostic == {
        "message": "`sys` imported but unused",
        "location": {"path": "a.py", "range": {"start": {"line": 2, "column": 22},
                                                "end": {"line": 2, "column": 25}}},
        "severity": "ERROR", "source": {"name": "imports"},
        "code": {"value": "F401", "url": "https://docs.astral.sh/ruff/rules/unused-import"},
        "suggestions": [{"range": {"start": {"line": 2, "column": 15}, "end": {"line": 2, "column": 25}},
                         "text": ""}],
    }


def test_show_preexisting_adds_them(changed: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    document = rdjson(changed, capsys, "--show-preexisting")
    assert [(d["location"]["range"]["start"]["line"], d["code"]["value"])
            for d in document["diagnostics"]] == [(1, "F401"), (2, "F401")]


def test_reviewdog_reads_it(changed: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    reviewdog = require_tool("reviewdog")
    document = rdjson(changed, capsys)
    run = subprocess.run([str(reviewdog), "-f=rdjson", "-reporter=local", "-filter-mode=added",
                          "-diff=git diff main", "-fail-level=error"], cwd=changed.path,
                         input=json.dumps(document), capture_output=True, text=True, timeout=60)
    # reviewdog parsed it, kept the finding on the added line and failed on its severity.
    assert run.returncode == 1, run.stderr
    assert "severity greater than or equal to the given level: error" in run.stderr
    assert "`sys` imported but unused" in run.stdout and 'path:"a.py"' in run.stdout
    broken = subprocess.run([str(reviewdog), "-f=rdjson", "-reporter=local", "-filter-mode=nofilter"],
                            cwd=changed.path, input='{"diagnostics": [{"location": 3}]}',
                            capture_output=True, text=True, timeout=60)
    assert broken.returncode != 0 and "failed to unmarshal rdjson" in broken.stderr
