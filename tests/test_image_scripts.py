"""The image scripts refuse a bad input with a message and exit 2 before any work: a flavor
the Dockerfile has no target for, a part install-tools.sh does not know, an extra
pyproject.toml does not declare; and extras.py prints what the Dockerfile installs."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, **(env or {})}, timeout=60)


def test_build_image_refuses_an_unknown_flavor() -> None:
    done = run("scripts/build-image", env={"REVIEWBOT_FLAVOR": "ruby"})
    assert done.returncode == 2
    assert "build-image: unknown flavor 'ruby' (use python, node, go, rust or full)" in done.stderr


def test_install_tools_refuses_an_unknown_part() -> None:
    done = run("scripts/install-tools.sh", "npm", "pip")
    assert done.returncode == 2 and "unknown part 'pip' (use npm, go or cargo)" in done.stderr


def test_extras_prints_the_requirements_and_expands_the_project_s_own() -> None:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        project = tomllib.load(handle)["project"]
    extras = project["optional-dependencies"]
    done = run(sys.executable, "scripts/extras.py", "pyproject.toml", "tools")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == extras["python-tools"] + extras["checkers"]
    deps = run(sys.executable, "scripts/extras.py", "pyproject.toml", "dependencies")
    assert deps.stdout.splitlines() == project["dependencies"]


def test_extras_refuses_an_unknown_extra() -> None:
    done = run(sys.executable, "scripts/extras.py", "pyproject.toml", "checkers", "lint")
    assert done.returncode == 2 and "has no optional dependencies 'lint'" in done.stderr
    assert done.stdout == ""
