"""The shipped workflow examples and the action: valid against GitHub's published schemas,
clean under actionlint, and every use of the action gives only inputs action.yml declares and
its mode takes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot import action
from tests.conftest import require_tool

ROOT = Path(__file__).resolve().parent.parent
CHECK = Path(sys.executable).parent / "check-jsonschema"
WORKFLOWS = sorted((ROOT / "examples" / "github").glob("*.yml"))
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())


def test_the_examples_cover_every_flow() -> None:
    assert {p.name for p in WORKFLOWS} >= {
        "pull-request.yml", "fork-safe.yml", "fork-safe-publish.yml", "commands.yml",
        "apply-label.yml", "sweep.yml", "code-scanning.yml", "sharded.yml"}


@pytest.mark.parametrize(("schema", "files"), [
    ("vendor.github-workflows", WORKFLOWS),
    ("vendor.github-actions", [ROOT / "action.yml"]),
])
def test_valid_against_the_published_schema(schema: str, files: list[Path]) -> None:
    assert files
    done = subprocess.run([str(CHECK), "--builtin-schema", schema, *map(str, files)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_finds_nothing() -> None:
    done = subprocess.run([str(require_tool("actionlint")), "-no-color", *map(str, WORKFLOWS)],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_would_catch_a_mistake(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text((ROOT / "examples" / "github" / "code-scanning.yml").read_text()
                      .replace("steps.reviewbot.outputs", "step.reviewbot.outputs"))
    done = subprocess.run([str(require_tool("actionlint")), "-no-color", str(broken)],
                          capture_output=True, text=True)
    assert done.returncode == 1 and "step" in done.stdout


def uses_of_the_action(path: Path) -> list[dict[str, Any]]:
    doc = yaml.safe_load(path.read_text())
    return [step for job in doc["jobs"].values() for step in job.get("steps", [])
            if str(step.get("uses", "")).startswith("OWNER/reviewbot@")]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_each_use_gives_inputs_its_mode_takes(path: Path) -> None:
    uses = uses_of_the_action(path)
    assert uses
    for step in uses:
        given = {k: str(v) for k, v in step.get("with", {}).items()}
        assert set(given) <= set(ACTION["inputs"]), path.name
        env = {f"INPUT_{k.upper()}": v for k, v in given.items()}
        action.command(action.read_inputs(env), "reviewbot.sarif")  # raises on a stray input


def test_the_outputs_the_examples_read_are_declared() -> None:
    declared = set(ACTION["outputs"])
    assert declared == {"introduced", "changed", "preexisting", "fixed", "gate", "sarif-file",
                        "regressions", "tracking-issue"}
    for path in WORKFLOWS:
        text = path.read_text()
        for part in text.split("steps.reviewbot.outputs.")[1:]:
            name = part.split()[0].rstrip("}")
            assert name in declared, (path.name, name)
