"""Where the bot looks for a tool's binary: repo-local first, then PATH, then its own tools."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path


def tools_dir() -> Path:
    """The folder `scripts/install-tools.sh` fills (`REVIEWBOT_TOOLS` overrides)."""
    override = os.environ.get("REVIEWBOT_TOOLS")
    if override:
        return Path(override)
    return Path(__file__).resolve().parent.parent / "tools"


def search_dirs(root: Path | None) -> list[Path]:
    dirs: list[Path] = []
    if root is not None:
        dirs.append(root / "node_modules" / ".bin")
    dirs += [Path(p) for p in os.environ.get("PATH", "").split(os.pathsep) if p]
    tools = tools_dir()
    dirs += [tools / "node_modules" / ".bin", tools / "bin", Path(sys.prefix) / "bin"]
    return dirs


def find_executable(names: Sequence[str], root: Path | None = None,
                    configured: str | None = None) -> str | None:
    """First match of any of `names` in the search order; a configured path wins if it works."""
    if configured:
        found = shutil.which(configured)
        if found:
            return found
    for directory in search_dirs(root):
        for name in names:
            candidate = directory / name
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    return None
