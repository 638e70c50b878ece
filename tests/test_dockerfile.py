"""The Dockerfile is hadolint clean (the image itself is built and run by scripts/image-check)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import require_tool

ROOT = Path(__file__).resolve().parent.parent


def test_hadolint_finds_nothing() -> None:
    done = subprocess.run([str(require_tool("hadolint")), "--no-color", "Dockerfile"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_hadolint_would_catch_a_mistake(tmp_path: Path) -> None:
    broken = tmp_path / "Dockerfile"
    broken.write_text((ROOT / "Dockerfile").read_text().replace("USER 1001\nENTRYPOINT",
                                                                "USER root\nENTRYPOINT"))
    done = subprocess.run([str(require_tool("hadolint")), "--no-color", str(broken)],
                          capture_output=True, text=True)
    assert done.returncode == 1 and "DL3002" in done.stdout
