"""The shipped workflow examples and the action: valid against GitHub's published schemas,
and the action's entry point runs the command each input names (analyze without a token)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECK = Path(sys.executable).parent / "check-jsonschema"


@pytest.mark.parametrize(("schema", "files"), [
    ("vendor.github-workflows", sorted((ROOT / "examples" / "github").glob("*.yml"))),
    ("vendor.github-actions", [ROOT / "action.yml"]),
])
def test_valid_against_the_published_schema(schema: str, files: list[Path]) -> None:
    assert files
    done = subprocess.run([str(CHECK), "--builtin-schema", schema, *map(str, files)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def run_entrypoint(tmp_path: Path, *args: str) -> tuple[int, list[str], str]:
    """The entry point with a `reviewbot` on PATH that records its argv and whether it saw a token."""
    shim = tmp_path / "bin" / "reviewbot"
    shim.parent.mkdir(exist_ok=True)
    shim.write_text("#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$OUT.args\"\n"
                    "printf '%s' \"${GITHUB_TOKEN-unset}\" > \"$OUT.token\"\n")
    shim.chmod(0o755)
    out = tmp_path / "run"
    env = {**os.environ, "PATH": f"{shim.parent}{os.pathsep}{os.environ['PATH']}",
           "GITHUB_TOKEN": "ghs_secret", "OUT": str(out)}
    done = subprocess.run([str(ROOT / "scripts" / "action-entrypoint"), *args], env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        return done.returncode, [], done.stderr
    return 0, out.with_suffix(".args").read_text().split("\n")[:-1], \
        out.with_suffix(".token").read_text()


def test_entrypoint_commands(tmp_path: Path) -> None:
    assert run_entrypoint(tmp_path, "ci", "a.json", "", "50") == \
        (0, ["ci", "--max-comments", "50"], "ghs_secret")
    assert run_entrypoint(tmp_path, "ci", "a.json", "warning", "9") == \
        (0, ["ci", "--fail-level", "warning", "--max-comments", "9"], "ghs_secret")
    assert run_entrypoint(tmp_path, "analyze", "a.json", "error", "50") == \
        (0, ["analyze", "--out", "a.json"], "unset")
    assert run_entrypoint(tmp_path, "publish", "a.json", "", "5") == \
        (0, ["publish", "--max-comments", "5", "a.json"], "ghs_secret")
    status, _, err = run_entrypoint(tmp_path, "deploy", "a.json", "", "5")
    assert status == 2 and "unknown command 'deploy'" in err
