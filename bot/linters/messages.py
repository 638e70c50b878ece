"""A tool's error output as a reviewer needs it: the lines that name the problem (no stack
frames), checkout paths as repository-relative ones, and for a missing npm package the install
command the repository's lock file implies.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from bot.analyzer import Target

# Stack frames: Node (`    at f (node:internal/...)`, `    at file:///...`) and Python.
_FRAME = re.compile(r"^\s+at\s|^\s+File \"|^\s*\^+\s*$|node:internal")
_ERROR_LINE = re.compile(r"\b(error|Error|ERROR|cannot|Cannot|failed|Failed)\b")
_MISSING = re.compile(r"Cannot find (?:package|module) ['\"]([^'\"]+)['\"]"
                      r"|Failed to load (?:plugin|parser|config) ['\"]([^'\"]+)['\"]"
                      r"|[Cc]ould(?:n't| not) resolve (?:the )?(?:package|module) ['\"`]([^'\"`]+)['\"`]")

# Lock file -> the install command that reproduces it (first match wins: a repository with
# several lock files is most likely on the one listed first).
LOCK_FILES = (
    ("pnpm-lock.yaml", "pnpm install --frozen-lockfile"),
    ("bun.lock", "bun install"),
    ("bun.lockb", "bun install"),
    ("yarn.lock", "yarn install --frozen-lockfile"),
    ("package-lock.json", "npm ci"),
    ("npm-shrinkwrap.json", "npm ci"),
)


def install_command(root: Path) -> str:
    """How the repository at `root` installs its npm dependencies, from its lock file."""
    for name, command in LOCK_FILES:
        if (root / name).is_file():
            if name == "yarn.lock" and (root / ".yarnrc.yml").is_file():
                return "yarn install --immutable"  # Yarn 2+ (berry) spells --frozen-lockfile so
            return command
    return "npm install"


def relativize(text: str, roots: Sequence[Path]) -> str:
    """`text` with every checkout root dropped from the paths it names (`<root>/a/b.js` ->
    `a/b.js`, the root alone -> `.`), also as `file://` URLs and through symbolic links."""
    spellings = {str(p) for r in roots for p in (r, r.resolve()) if str(p) not in ("", "/")}
    for root in sorted(spellings, key=len, reverse=True):
        text = re.sub(r"(?:file://)?" + re.escape(root) + r"(?:/|(?![\w.-]))",
                      lambda m: "" if m.group(0).endswith("/") else ".", text)
    return text


def meaningful(text: str, lines: int = 15) -> str:
    """The lines that say what went wrong: no stack frames; when too many, the first error
    line and the last ones."""
    kept = [ln.rstrip() for ln in text.splitlines() if ln.strip() and not _FRAME.search(ln)]
    if len(kept) <= lines:
        return "\n".join(kept)
    first = next((ln for ln in kept if _ERROR_LINE.search(ln)), kept[0])
    rest = kept[-(lines - 1):]
    return "\n".join(([first] if first not in rest else []) + rest)


def missing_package(text: str) -> str | None:
    """The npm package an error says cannot be found; None for anything else (a relative
    module is the repository's own file, not a package)."""
    for match in _MISSING.finditer(text):
        name = next(g for g in match.groups() if g)
        if not name.startswith((".", "/")) and not re.match(r"^[A-Za-z]:[\\/]", name):
            return name
    return None


def explain(text: str, target: Target, others: Sequence[Path] = (), lines: int = 15) -> str:
    """A tool's error output for the report (see the module docstring). `others` are further
    checkouts the output may name (the other revision's)."""
    roots = [target.root, *others, *([target.repo] if target.repo is not None else [])]
    shown = meaningful(relativize(text, roots), lines)
    package = missing_package(shown)
    if package is not None:
        shown += (f"\nthe npm package {package!r} is not installed in the repository: run "
                  f"`{install_command(target.root)}` before the review")
    return shown
