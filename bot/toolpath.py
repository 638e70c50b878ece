"""Where the bot looks for a tool's binary: repo-local first, then PATH, then its own tools."""

from __future__ import annotations

import json
import mmap
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Literal


def tools_dir() -> Path:
    """The folder `scripts/install-tools.sh` fills (`REVIEWBOT_TOOLS` overrides)."""
    override = os.environ.get("REVIEWBOT_TOOLS")
    if override:
        return Path(override)
    return Path(__file__).resolve().parent.parent / "tools"


Origin = Literal["repository", "PATH", "bundled"]


def labelled_dirs(root: Path | None) -> list[tuple[Origin, Path]]:
    """The search order, each folder with the part of it it belongs to: the repository's own
    `node_modules/.bin`, PATH, then the bot's tools folder and its own environment."""
    dirs: list[tuple[Origin, Path]] = []
    if root is not None:
        dirs.append(("repository", root / "node_modules" / ".bin"))
    dirs += [("PATH", Path(p)) for p in os.environ.get("PATH", "").split(os.pathsep) if p]
    tools = tools_dir()
    dirs += [("bundled", d) for d in (tools / "node_modules" / ".bin", tools / "bin",
                                      Path(sys.prefix) / "bin")]
    return dirs


def search_dirs(root: Path | None) -> list[Path]:
    return [d for _, d in labelled_dirs(root)]


def origin(executable: str, root: Path | None) -> Origin | None:
    """Which part of the search order `executable` (as `find_executable` returned it) was
    found in; None for a path outside it (a configured one)."""
    folder = Path(executable).parent
    return next((label for label, d in labelled_dirs(root) if d == folder), None)


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
            if _runnable(candidate):
                return str(candidate)
    return None


def _runnable(candidate: Path) -> bool:
    """An executable regular file; a folder of the search order that this user may not
    read (a PATH entry of another user's) holds nothing it can run."""
    try:
        return candidate.is_file() and os.access(candidate, os.X_OK)
    except OSError:
        return False


def npm_version(exe: str, package: str) -> str | None:
    """The version of the npm `package` whose bin script `exe` is, read from its package.json
    (what the tool's own `--version` prints) without starting node; None when `exe` is not
    laid out as an installed npm package."""
    try:
        script = Path(os.path.realpath(exe))
        with script.open("rb") as handle:
            first = handle.readline(200)
    except OSError:
        return None
    # The version alone does not prove the tool runs: its interpreter must be there too.
    words = first[2:].decode("utf-8", "replace").split() if first.startswith(b"#!") else []
    if words and Path(words[0]).name == "env":
        words = [w for w in words[1:] if not w.startswith("-")]
    if words and shutil.which(words[0]) is None:
        return None
    folder = script.parent
    for candidate in (folder, *folder.parents[:3]):
        try:
            manifest = json.loads((candidate / "package.json").read_text("utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(manifest, dict) and manifest.get("name") == package:
            version = manifest.get("version")
            return version if isinstance(version, str) and version else None
    return None


GO_BUILDINFO = b"\xff Go buildinf:"


def _uvarint(data: bytes | mmap.mmap, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, pos
        shift += 7


def go_module_version(exe: str, module: str) -> str | None:
    """The version of `module` recorded in a Go binary's build information (what `go version
    -m` prints, e.g. from `go install module/...@v1.2.3`), read without running it; None for
    builds that record none ("(devel)") or binaries in an older layout."""
    try:
        with open(exe, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as data:
            start = data.find(GO_BUILDINFO)
            if start < 0 or len(data) < start + 32 or not data[start + 15] & 0x02:
                return None  # Go before 1.18 stored pointers, not the strings themselves
            size, pos = _uvarint(data, start + 32)  # the Go version
            size, pos = _uvarint(data, pos + size)  # the module information
            info = bytes(data[pos:pos + size]).decode("utf-8", "replace")
    except (OSError, ValueError, IndexError):
        return None
    for line in info.splitlines():
        fields = line.split("\t")
        if len(fields) >= 3 and fields[0] == "mod" and fields[1] == module:
            return fields[2] if fields[2].startswith("v") else None
    return None
