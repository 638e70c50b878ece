"""The shipped GitLab CI templates: valid against GitLab's CI schema (check-jsonschema's
vendored copy), and the job runs `reviewbot ci` on merge request pipelines with the report."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
CHECK = Path(sys.executable).parent / "check-jsonschema"
TEMPLATES = sorted((ROOT / "templates" / "gitlab").glob("*.yml"))


def test_valid_against_gitlabs_schema() -> None:
    assert TEMPLATES
    done = subprocess.run([str(CHECK), "--builtin-schema", "vendor.gitlab-ci", *map(str, TEMPLATES)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_schema_check_can_fail(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("job:\n  script: 1\n  rules: yes\n")
    done = subprocess.run([str(CHECK), "--builtin-schema", "vendor.gitlab-ci", str(bad)],
                          capture_output=True, text=True)
    assert done.returncode != 0


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: p.name)
def test_the_merge_request_job(path: Path) -> None:
    job = yaml.safe_load(path.read_text())["reviewbot"]
    assert job["rules"] == [{"if": '$CI_PIPELINE_SOURCE == "merge_request_event"'}]
    [script] = job["script"]
    report = job["artifacts"]["reports"]["codequality"]
    assert script.startswith("reviewbot ci ") and f"--code-quality {report}" in script
    assert job["artifacts"]["when"] == "always"  # a failing gate still uploads the report
