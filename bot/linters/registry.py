"""The linters the bot knows: a plain dict, name -> Analyzer. Only this module imports them.

Built-in adapters and zero-configuration presets are always here; each also counts as
configured where `.pre-commit-config.yaml` has a hook for it. The linters a repository
declares in `.reviewbot.yml` come from its settings (`declared`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from bot.analyzer import Analyzer
from bot.config import Declared
from bot.linters import biome, clippy, eslint, golangci, mypy, precommit, presets, ruff
from bot.linters import declared as declared_mod
from bot.linters.base import LinterSpec
from bot.linters.runner import LinterAnalyzer


def _or_precommit(spec: LinterSpec) -> LinterSpec:
    own = spec.detect

    def detect(root: Path) -> bool:
        configured = own(root) if own is not None else any(
            (root / name).is_file() for name in spec.config_files)
        return configured or spec.name in precommit.configured(root)

    return replace(spec, detect=detect, markers=(*spec.markers, precommit.FILE))


SPECS: tuple[LinterSpec, ...] = tuple(_or_precommit(s) for s in (
    ruff.SPEC, eslint.SPEC, biome.SPEC, golangci.SPEC, clippy.SPEC, mypy.SPEC, *presets.SPECS))

LINTERS: dict[str, Analyzer] = {spec.name: LinterAnalyzer(spec) for spec in SPECS}

# Files the base checkout takes from the head, so both revisions use the head's configuration.
CONFIG_FILES: tuple[str, ...] = tuple(dict.fromkeys(f for s in SPECS for f in s.config_files))


def declared(tools: Iterable[Declared]) -> Mapping[str, Analyzer]:
    """The linters a repository declares (`Config.declared`), by name."""
    return declared_mod.analyzers(tools)
