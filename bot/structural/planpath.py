"""Which paths a plan may write: clean relative POSIX paths that stay inside the root.

A plan file is input (it may come from anyone), so its paths are checked twice: by their text
alone when the plan is read, and against the file system (symbolic links resolved) just before
anything is written. Each check answers with the reason a path is refused, or None.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path


def lexical_problem(path: str) -> str | None:
    """Why `path`, as written, is not a clean relative POSIX path inside its root."""
    if not path:
        return "is empty"
    if "\x00" in path:
        return "contains a NUL character"
    try:
        os.fsencode(path)
    except UnicodeEncodeError:
        return "is not a file name this system can spell"
    if "\\" in path:
        return "contains a backslash (plan paths use '/' only)"
    if path.startswith("/"):
        return "is absolute (plan paths are relative to the plan's root)"
    for segment in path.split("/"):
        if segment == "":
            return "has an empty segment"
        if segment == "..":
            return "has a '..' segment (it would leave the plan's root)"
        if segment == ".":
            return "has a '.' segment (not a clean path)"
        if segment.lower() == ".git":
            return "is inside .git (a plan edits source files only)"
    return None


def containment_problem(root: Path, rel: str) -> str | None:
    """Why writing `root/rel` would touch something other than a regular file inside `root`
    (followed through symbolic links). A missing file is not a problem here: the hash check
    reports it as deleted since staging."""
    real_root = Path(os.path.realpath(root))
    target = root / rel
    real = Path(os.path.realpath(target))
    if not real.is_relative_to(real_root):
        return f"resolves to {real}, outside the plan's root {real_root} (through a symbolic link)"
    try:
        if target.is_symlink():
            return "is a symbolic link (a plan edits regular files only)"
        mode = target.stat().st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot be examined: {exc.strerror or exc}"
    if not stat.S_ISREG(mode):
        return "is not a regular file"
    return None


def root_problem(root: Path, cwd: Path) -> str | None:
    """Why a plan's root is not one this directory may apply: the root must be the current
    directory or inside it, so a plan cannot point its edits at another tree."""
    real_root, real_cwd = Path(os.path.realpath(root)), Path(os.path.realpath(cwd))
    if not real_root.is_dir():
        return f"{root} is not a directory"
    if not real_root.is_relative_to(real_cwd):
        return (f"{root} is not the current directory {real_cwd} or inside it: apply a plan "
                "from the directory it was staged in")
    return None


def stage_problem(root: Path, rel: str) -> str | None:
    """Why a file found at staging could not be applied from `root` (the same checks apply
    makes, so that a plan that stages is a plan that applies)."""
    if rel == ".." or rel.startswith("../"):
        return (f"is outside the current directory {root}: a plan edits files below the folder "
                "it is staged and applied in; stage from a folder that holds every file")
    return lexical_problem(rel) or containment_problem(root, rel)
